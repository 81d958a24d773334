package controller_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/internal/testcert"
)

// clientAuthServer starts a webhook server for 127.0.0.1 that serves the
// gadget validator and trusts the CA file caFile for client certificates,
// and returns its address and the pool that trusts its serving certificate.
func clientAuthServer(t *testing.T, caFile string) (addr string, roots *x509.CertPool) {
	t.Helper()
	dir := t.TempDir()
	roots = servingCert(t, dir, 1)
	s, err := controller.NewWebhookServer(controller.WebhookServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
		ClientCAFile: caFile, Logger: quiet,
	})
	require.NoError(t, err)
	require.NoError(t, s.Register("/validate-gadget", controller.Webhook(controller.ValidatingWebhook[*Gadget](gadgetGVK, &gadgetRules{}), quiet)))
	startWebhookServer(t, s)
	return s.Addr().String(), roots
}

// callAs sends one admission review to addr over a new connection,
// presenting certs (none when empty), and returns the body of the answer,
// or the error of the call.
func callAs(addr string, roots *x509.CertPool, certs ...tls.Certificate) (string, error) {
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, Certificates: certs},
		DisableKeepAlives: true,
	}}
	resp, err := hc.Post("https://"+addr+"/validate-gadget", "application/json", strings.NewReader(review(controller.Create, `{"spec":{"color":"blue"}}`, "")))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// With a ClientCAFile, the webhook server answers only callers that present
// a client certificate signed by that CA: a caller with no certificate, or
// with one of another CA, is refused at the TLS handshake and never reaches
// a handler; the API server's certificate gets the webhook's answer.
// Diagram: none. client-go: controller-runtime webhook.Options.ClientCAName (RequireAndVerifyClientCert)
func TestWebhookServerWithClientCAAnswersOnlyCallersItSigned(t *testing.T) {
	apiserver, err := testcert.WriteClient(t.TempDir(), "kube-apiserver")
	require.NoError(t, err)
	stranger, err := testcert.WriteClient(t.TempDir(), "stranger")
	require.NoError(t, err)
	addr, roots := clientAuthServer(t, apiserver.CAFile)

	_, noCert := callAs(addr, roots)
	_, otherCA := callAs(addr, roots, stranger.Certificate)
	body, signed := callAs(addr, roots, apiserver.Certificate)

	require.Error(t, noCert, "no client certificate")
	assert.Contains(t, noCert.Error(), "certificate required")
	require.Error(t, otherCA, "a certificate of another CA")
	assert.Contains(t, otherCA.Error(), "bad certificate")
	require.NoError(t, signed)
	assert.Contains(t, body, `"allowed":true`)
}

// The client CA file is read again when it changes, as the serving
// certificate is: after the CA is rotated in place, callers signed by the
// new CA are answered and those of the old one refused, without a restart.
// A file that stops loading keeps the last good CA.
// Diagram: none. client-go: controller-runtime certwatcher (here for the client CA)
func TestWebhookServerReloadsItsClientCA(t *testing.T) {
	caDir := t.TempDir()
	old, err := testcert.WriteClient(caDir, "kube-apiserver")
	require.NoError(t, err)
	addr, roots := clientAuthServer(t, old.CAFile)
	_, err = callAs(addr, roots, old.Certificate)
	require.NoError(t, err, "the first CA's caller")

	rotated, err := testcert.WriteClient(caDir, "kube-apiserver") // new CA, written over the files in place
	require.NoError(t, err)
	_, oldCaller := callAs(addr, roots, old.Certificate)
	_, newCaller := callAs(addr, roots, rotated.Certificate)

	assert.Error(t, oldCaller, "the rotated-out CA's caller is refused")
	assert.NoError(t, newCaller, "the new CA's caller is answered")

	require.NoError(t, os.WriteFile(rotated.CAFile, []byte("not a certificate"), 0o600))
	_, err = callAs(addr, roots, rotated.Certificate)
	assert.NoError(t, err, "a broken CA file keeps the previous CA")
}

// A ClientCAFile that does not hold a certificate fails Start at once,
// with the file named.
// Diagram: none. client-go: controller-runtime webhook.Server.Start
func TestWebhookServerWithABadClientCAFailsToStart(t *testing.T) {
	dir := t.TempDir()
	servingCert(t, dir, 1)
	junk := filepath.Join(dir, "ca.crt")
	require.NoError(t, os.WriteFile(junk, []byte("junk"), 0o600))
	for _, caFile := range []string{junk, filepath.Join(dir, "missing.crt")} {
		s, err := controller.NewWebhookServer(controller.WebhookServerOptions{
			BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
			ClientCAFile: caFile, Logger: quiet,
		})
		require.NoError(t, err)

		err = s.Start(t.Context())

		require.Error(t, err)
		assert.Contains(t, err.Error(), "controller: webhook server: client CA")
		assert.Contains(t, err.Error(), caFile)
	}
}
