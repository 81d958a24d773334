package samplecontrollertest

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/internal/testcert"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// webhookPKI writes a CA and a serving certificate for 127.0.0.1 signed by
// it into dir (tls.crt, tls.key) and returns the CA's PEM: the caBundle the
// API server verifies the webhook with.
func webhookPKI(t *testing.T, dir string) []byte {
	t.Helper()
	pair, err := testcert.Write(dir, 1)
	require.NoError(t, err)
	return pair.CAPEM
}

// webhookConfigurations registers the sample controller's two webhooks with
// the API server, for Foos in namespace ns only (other tests share the
// server), with failurePolicy policy.
const webhookConfigurations = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: %[1]s
webhooks:
  - name: default.foos.samplecontroller.k8s.io
    clientConfig:
      url: https://%[2]s%[3]s
      caBundle: %[4]s
    rules:
      - operations: [CREATE, UPDATE]
        apiGroups: [samplecontroller.k8s.io]
        apiVersions: [v1alpha1]
        resources: [foos]
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: %[1]s
    failurePolicy: %[6]s
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: %[1]s
webhooks:
  - name: validate.foos.samplecontroller.k8s.io
    clientConfig:
      url: https://%[2]s%[5]s
      caBundle: %[4]s
    rules:
      - operations: [CREATE, UPDATE]
        apiGroups: [samplecontroller.k8s.io]
        apiVersions: [v1alpha1]
        resources: [foos]
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: %[1]s
    failurePolicy: %[6]s
    sideEffects: None
    admissionReviewVersions: [v1]
    timeoutSeconds: 5
`

// fooWithoutReplicas is a Foo manifest that leaves spec.replicas out.
const fooWithoutReplicas = `apiVersion: samplecontroller.k8s.io/v1alpha1
kind: Foo
metadata:
  name: %s
  namespace: %s
spec:
  deploymentName: %s
`

// TestAdmissionWebhooksOnTheRealAPIServer: the sample controller's Manager
// serves its defaulting and validating webhooks on 127.0.0.1, and the API
// server calls them, registered by a Mutating- and a
// ValidatingWebhookConfiguration with the CA bundle:
//
//  1. a Foo created with kubectl without replicas is stored with the default
//     the mutating webhook wrote (the CRD has none of its own);
//  2. a Foo that names the Deployment another Foo controls is refused at
//     create with the validating webhook's message;
//  3. the CEL transition rule refuses a change of deploymentName before any
//     webhook is asked;
//  4. with the Manager stopped, failurePolicy Fail refuses every create
//     with "failed calling webhook", and Ignore lets it through, undefaulted.
//
// Diagram: none (admission happens before the object is stored and reaches step 1). client-go: controller-runtime webhook.Server; admissionregistration.k8s.io/v1
func TestAdmissionWebhooksOnTheRealAPIServer(t *testing.T) {
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	dir := t.TempDir()
	caBundle := webhookPKI(t, dir)
	ws, err := admission.NewServer(admission.ServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
	})
	require.NoError(t, err)
	stop := startWithWebhooks(t, ns, ws)
	register := func(policy string) {
		manifest := fmt.Sprintf(webhookConfigurations, ns, ws.Addr().String(), sc.MutatePath,
			base64.StdEncoding.EncodeToString(caBundle), sc.ValidatePath, policy)
		_, err := testenv.KubectlStdin(t, manifest, "apply", "-f", "-")
		require.NoError(t, err)
	}
	register("Fail")
	t.Cleanup(func() {
		_, _ = testenv.KubectlErr(t, "delete", "mutatingwebhookconfiguration,validatingwebhookconfiguration", ns, "--ignore-not-found")
	})
	// The API server learns of the configurations through its own informer:
	// wait until a server-side dry run comes back defaulted.
	eventually(t, "the API server to call the mutating webhook", func() bool {
		out, err := testenv.KubectlStdin(t, fmt.Sprintf(fooWithoutReplicas, "probe", ns, "probe"), "create", "--dry-run=server", "-o", "jsonpath={.spec.replicas}", "-f", "-")
		return err == nil && out == "1"
	})

	// 1. Defaulted by the mutating webhook.
	_, err = testenv.KubectlStdin(t, fmt.Sprintf(fooWithoutReplicas, "first", ns, "web"), "create", "-f", "-")
	require.NoError(t, err)
	replicas := testenv.Kubectl(t, "get", "foo", "first", "-n", ns, "-o", "jsonpath={.spec.replicas}")
	assert.Equal(t, "1", replicas, "the stored Foo carries the webhook's default")
	waitFor(t, typedClient(t).Resource(sc.FoosGVR).Namespace(ns), "first", "the Foo to report 1 available", available(1))

	// 2. Refused by the validating webhook: "web" is first's Deployment.
	out, err := testenv.KubectlStdin(t, fmt.Sprintf(fooWithoutReplicas, "second", ns, "web"), "create", "-f", "-")
	require.Error(t, err, "refused: %s", out)
	// The webhook answered with an Invalid status, which the API server
	// passes on as it is: the message is the webhook's own.
	assert.Contains(t, err.Error(), `The Foo "second" is invalid: spec.deploymentName: Invalid value: "web": Deployment "web" is controlled by Foo "first": each Foo needs its own Deployment`)
	_, err = testenv.KubectlErr(t, "get", "foo", "second", "-n", ns)
	assert.Error(t, err, "nothing was stored")

	// 3. The CEL rule, evaluated by the API server itself.
	_, err = testenv.KubectlErr(t, "patch", "foo", "first", "-n", ns, "--type=merge", "-p", `{"spec":{"deploymentName":"api"}}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "deploymentName cannot change once set")

	// 4. The failure policy, with nobody answering.
	require.NoError(t, stop())
	_, err = testenv.KubectlStdin(t, fmt.Sprintf(fooWithoutReplicas, "while-down", ns, "down"), "create", "-f", "-")
	require.Error(t, err, "Fail: no webhook, no create")
	assert.Contains(t, err.Error(), `failed calling webhook "default.foos.samplecontroller.k8s.io"`)
	register("Ignore")
	eventually(t, "the API server to ignore the silent webhooks", func() bool {
		_, err := testenv.KubectlStdin(t, fmt.Sprintf(fooWithoutReplicas, "while-down", ns, "down"), "create", "-f", "-")
		return err == nil
	})
	assert.Empty(t, testenv.Kubectl(t, "get", "foo", "while-down", "-n", ns, "-o", "jsonpath={.spec.replicas}"),
		"Ignore: stored as sent, with nobody to default it")
}

// startWithWebhooks runs the sample controller in ns with ws as its webhook
// server, and returns a function that stops it and returns Run's result.
func startWithWebhooks(t *testing.T, ns string, ws *admission.Server) (stop func() error) {
	t.Helper()
	c := typedClient(t)
	api := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return c.Resource(gvr).Namespace(ns) }
	ctrl, err := sc.New(api, sc.Options{
		Namespace: ns, DeploymentSimulator: true, WebhookServer: ws,
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	eventually(t, "the webhook server to serve", ws.Serving)
	stopped := false
	var result error
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			result = <-done
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// eventually polls cond until it holds, failing the test after wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", wait, what)
		}
		time.Sleep(200 * time.Millisecond) // a real server's caches: poll with a deadline
	}
}
