package samplecontrollertest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/internal/testcert"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// webhookKubeconfig is the kubeconfig kube-apiserver reads the credentials
// it presents to webhooks from: the users entry is keyed by the webhook's
// host ("name.namespace.svc:port" for a Service, "host:port" for a URL),
// or "*" for every webhook.
const webhookKubeconfig = `apiVersion: v1
kind: Config
users:
  - name: "*"
    user:
      client-certificate: %s
      client-key: %s
`

// admissionConfiguration is kube-apiserver's
// --admission-control-config-file: both webhook admission plugins read the
// kubeconfig above.
const admissionConfiguration = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ValidatingAdmissionWebhook
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      kubeConfigFile: %[1]s
  - name: MutatingAdmissionWebhook
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      kubeConfigFile: %[1]s
`

// TestAdmissionWebhooksAuthenticateTheAPIServerByClientCertificate: the
// webhook server requires a client certificate from its client CA
// (admission.ServerOptions.ClientCAFile), and kube-apiserver is given one
// signed by it through --admission-control-config-file:
//
//  1. kube-apiserver's calls are answered: a Foo created without replicas
//     is stored with the mutating webhook's default;
//  2. a caller without a client certificate, or with one of another CA,
//     is refused at the TLS handshake;
//  3. a kube-apiserver without that configuration (the shared control
//     plane) is refused too: with failurePolicy Fail, its create fails with
//     "failed calling webhook" (and the TLS alert, or the connection the
//     alert closed).
//
// Diagram: none (admission happens before the object is stored and reaches step 1). client-go: controller-runtime webhook.Options.ClientCAName; apiserver.config.k8s.io/v1 WebhookAdmissionConfiguration
func TestAdmissionWebhooksAuthenticateTheAPIServerByClientCertificate(t *testing.T) {
	dir := t.TempDir()
	caBundle := webhookPKI(t, dir)
	apiserverCert, err := testcert.WriteClient(dir, "kube-apiserver")
	require.NoError(t, err)
	kubeconfig := filepath.Join(dir, "webhook-kubeconfig.yaml")
	require.NoError(t, os.WriteFile(kubeconfig, fmt.Appendf(nil, webhookKubeconfig, apiserverCert.CertFile, apiserverCert.KeyFile), 0o600))
	admissionFile := filepath.Join(dir, "admission.yaml")
	require.NoError(t, os.WriteFile(admissionFile, fmt.Appendf(nil, admissionConfiguration, kubeconfig), 0o600))
	cp := testenv.StartControlPlane(t, "webhook-client-auth", controlplane.Options{
		ExtraAPIServerFlags: []string{"--admission-control-config-file=" + admissionFile},
	})
	testenv.InstallFooCRDOn(t, cp)
	ns := testenv.NamespaceOn(t, cp)
	ws, err := admission.NewServer(admission.ServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
		ClientCAFile: apiserverCert.CAFile,
	})
	require.NoError(t, err)
	startWithWebhooks(t, testenv.ClientOf(t, cp, sc.NewScheme()), ns, ws)
	addr := ws.Addr().String()
	_, err = testenv.KubectlStdinOn(t, cp, webhookConfigurations(t, ns, addr, caBundle, "Fail"), "apply", "-f", "-")
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = testenv.KubectlStdinOn(t, cp, "", "delete", "mutatingwebhookconfiguration,validatingwebhookconfiguration", ns, "--ignore-not-found")
	})

	// 1. kube-apiserver presents its certificate, and is answered.
	eventually(t, "the API server to call the mutating webhook", func() bool {
		out, err := testenv.KubectlStdinOn(t, cp, fmt.Sprintf(fooWithoutReplicas, "probe", ns, "probe"), "create", "--dry-run=server", "-o", "jsonpath={.spec.replicas}", "-f", "-")
		return err == nil && out == "1"
	})
	_, err = testenv.KubectlStdinOn(t, cp, fmt.Sprintf(fooWithoutReplicas, "first", ns, "web"), "create", "-f", "-")
	require.NoError(t, err)
	assert.Equal(t, "1", testenv.KubectlOn(t, cp, "get", "foo", "first", "-n", ns, "-o", "jsonpath={.spec.replicas}"),
		"kube-apiserver's call with its client certificate was answered")

	// 2. Anyone else is refused at the handshake.
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(caBundle))
	stranger, err := testcert.WriteClient(t.TempDir(), "stranger")
	require.NoError(t, err)
	call := func(certs ...tls.Certificate) error {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
		resp, err := hc.Post("https://"+addr+sc.ValidatePath, "application/json", strings.NewReader(`{}`))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	noCert, otherCA := call(), call(stranger.Certificate)
	// With TLS 1.3 the caller's side of the handshake ends before the
	// server has checked its certificate: the refusal arrives as the
	// server's alert, or as the connection the alert closed.
	require.Error(t, noCert)
	assert.Regexp(t, `certificate required|broken pipe|connection reset by peer|client conn could not be established`, noCert.Error())
	require.Error(t, otherCA)
	assert.Regexp(t, `bad certificate|broken pipe|connection reset by peer`, otherCA.Error())
	t.Logf("a direct call without a client certificate: %v", noCert)
	t.Logf("a direct call with another CA's certificate: %v", otherCA)

	// 3. A kube-apiserver that presents nothing is refused as well.
	testenv.InstallFooCRD(t)
	shared := testenv.Namespace(t)
	_, err = testenv.KubectlStdin(t, webhookConfigurations(t, shared, addr, caBundle, "Fail"), "apply", "-f", "-")
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = testenv.KubectlErr(t, "delete", "mutatingwebhookconfiguration,validatingwebhookconfiguration", shared, "--ignore-not-found")
	})
	var refused error
	eventually(t, "the shared API server to call the webhook and be refused", func() bool {
		_, refused = testenv.KubectlStdin(t, fmt.Sprintf(fooWithoutReplicas, "anonymous", shared, "web"), "create", "-f", "-")
		return refused != nil && strings.Contains(refused.Error(), "failed calling webhook")
	})
	assert.Regexp(t, `certificate required|broken pipe|connection reset by peer|client conn could not be established`, refused.Error())
	_, err = testenv.KubectlErr(t, "get", "foo", "anonymous", "-n", shared)
	assert.Error(t, err, "nothing was stored")
	t.Logf("kube-apiserver without a client certificate: %s", lastLine(refused.Error()))
}

// lastLine returns the last non-empty line of s: kubectl's message.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
