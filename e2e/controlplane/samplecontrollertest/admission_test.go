package samplecontrollertest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/internal/testcert"
	sc "github.com/informerlab/informerlab/samplecontroller"
	"github.com/informerlab/informerlab/samplecontroller/deploy"
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

// webhookConfigurations returns the sample controller's two webhook
// configurations of samplecontroller/deploy/webhooks.yaml, as applied to a
// server where the webhook is not behind a Service: named ns, calling the
// webhook server at addr by URL (the path of the Service reference kept)
// with caBundle, for Foos in namespace ns only (other tests share the
// server), with failurePolicy policy. It returns them as a v1 List, JSON,
// for kubectl apply -f -.
func webhookConfigurations(t *testing.T, ns, addr string, caBundle []byte, policy string) string {
	t.Helper()
	objs, err := deploy.Objects(deploy.Webhooks())
	require.NoError(t, err)
	var items []any
	for _, obj := range objs {
		obj.SetName(ns)
		hooks, _, err := unstructured.NestedSlice(obj.Object, "webhooks")
		require.NoError(t, err)
		for _, h := range hooks {
			hook := h.(map[string]any)
			path, _, err := unstructured.NestedString(hook, "clientConfig", "service", "path")
			require.NoError(t, err)
			require.NotEmpty(t, path, "webhooks.yaml: %s calls a Service path", hook["name"])
			hook["clientConfig"] = map[string]any{"url": "https://" + addr + path, "caBundle": base64.StdEncoding.EncodeToString(caBundle)}
			hook["namespaceSelector"] = map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}}
			hook["failurePolicy"] = policy
		}
		require.NoError(t, unstructured.SetNestedSlice(obj.Object, hooks, "webhooks"))
		items = append(items, obj.Object)
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	require.NoError(t, err)
	return string(list)
}

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
// server calls them, registered by the Mutating- and
// ValidatingWebhookConfiguration of samplecontroller/deploy/webhooks.yaml,
// pointed at the server's URL with the CA bundle:
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
	stop := startWithWebhooks(t, typedClient(t), ns, ws)
	register := func(policy string) {
		manifest := webhookConfigurations(t, ns, ws.Addr().String(), caBundle, policy)
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

// startWithWebhooks runs the sample controller in ns, through c, with ws as
// its webhook server, and returns a function that stops it and returns
// Run's result.
func startWithWebhooks(t *testing.T, c *client.Client, ns string, ws *admission.Server) (stop func() error) {
	t.Helper()
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
