package admission_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/internal/testcert"
)

// clientAuthServer starts a webhook server for 127.0.0.1 that serves the
// gadget validator and trusts the CA file caFile for client certificates,
// and returns its address, the pool that trusts its serving certificate,
// and the number of calls that reached the handler.
func clientAuthServer(t *testing.T, caFile string) (addr string, roots *x509.CertPool, handled *atomic.Int64) {
	t.Helper()
	dir := t.TempDir()
	roots = servingCert(t, dir, 1)
	s, err := admission.NewServer(admission.ServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
		ClientCAFile: caFile, Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	handled = &atomic.Int64{}
	h := admission.Webhook(admission.ValidatingWebhook[*Gadget](gadgetGVK, &gadgetRules{}), ctrltest.Quiet)
	require.NoError(t, s.Register("/validate-gadget", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handled.Add(1)
		h.ServeHTTP(w, r)
	})))
	startWebhookServer(t, s)
	return s.Addr().String(), roots, handled
}

// refusedAtHandshake matches what a caller sees when the server refuses
// its certificate: with TLS 1.3 the caller's side of the handshake is over
// before the server checks, so the refusal comes as the server's alert or,
// if the connection closed first, as a broken connection.
func refusedAtHandshake(alert string) string {
	return alert + `|broken pipe|connection reset by peer`
}

// callAs sends one admission review to addr over a new connection,
// presenting certs (none when empty), and returns the body of the answer,
// or the error of the call.
func callAs(addr string, roots *x509.CertPool, certs ...tls.Certificate) (string, error) {
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, Certificates: certs},
		DisableKeepAlives: true,
	}}
	resp, err := hc.Post("https://"+addr+"/validate-gadget", "application/json", strings.NewReader(review(admission.Create, `{"spec":{"color":"blue"}}`, "")))
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
	addr, roots, handled := clientAuthServer(t, apiserver.CAFile)

	_, noCert := callAs(addr, roots)
	_, otherCA := callAs(addr, roots, stranger.Certificate)
	refusedCalls := handled.Load()
	body, signed := callAs(addr, roots, apiserver.Certificate)

	require.Error(t, noCert, "no client certificate")
	assert.Regexp(t, refusedAtHandshake("certificate required"), noCert.Error())
	require.Error(t, otherCA, "a certificate of another CA")
	assert.Regexp(t, refusedAtHandshake("bad certificate"), otherCA.Error())
	assert.Zero(t, refusedCalls, "a refused caller never reaches the handler")
	require.NoError(t, signed)
	assert.Contains(t, body, `"allowed":true`)
	assert.Equal(t, int64(1), handled.Load())
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
	addr, roots, _ := clientAuthServer(t, old.CAFile)
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
		s, err := admission.NewServer(admission.ServerOptions{
			BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"),
			ClientCAFile: caFile, Logger: ctrltest.Quiet,
		})
		require.NoError(t, err)

		err = s.Start(t.Context())

		require.Error(t, err)
		assert.Contains(t, err.Error(), "controller: webhook server: client CA")
		assert.Contains(t, err.Error(), caFile)
	}
}
