package admission_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/internal/testcert"
	"github.com/informerlab/informerlab/reflector"
)

// servingCert writes a serving certificate for 127.0.0.1 with the given
// serial into dir, as tls.crt and tls.key, and returns a pool that trusts it.
func servingCert(t *testing.T, dir string, serial int64) *x509.CertPool {
	t.Helper()
	pair, err := testcert.Write(dir, serial)
	require.NoError(t, err)
	return pair.Pool
}

// startWebhookServer starts s until the end of the test and waits until it serves.
func startWebhookServer(t *testing.T, s *admission.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	deadline := time.Now().Add(10 * time.Second)
	for !s.Serving() {
		require.True(t, time.Now().Before(deadline), "the webhook server never served")
		select {
		case err := <-done:
			t.Fatalf("the webhook server stopped: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// servedSerial connects to addr with a fresh TLS connection and returns the
// serial of the certificate the server presents.
func servedSerial(t *testing.T, addr string, roots *x509.CertPool) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// The webhook server serves each registered path over TLS with the
// certificate in its files, and serves the new certificate once the files
// are replaced (as cert-manager and the kubelet rotate them), without a
// restart. A pair that does not load leaves the previous one in service.
// Diagram: none. client-go: controller-runtime webhook.Server and certwatcher
func TestWebhookServerServesOverTLSAndReloadsItsCertificate(t *testing.T) {
	dir := t.TempDir()
	roots := servingCert(t, dir, 1)
	s, err := admission.NewServer(admission.ServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	require.NoError(t, s.Register("/validate-gadget", admission.Webhook(admission.ValidatingWebhook[*Gadget](gadgetGVK, &gadgetRules{}), ctrltest.Quiet)))
	startWebhookServer(t, s)
	addr := s.Addr().String()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}

	resp, err := hc.Post("https://"+addr+"/validate-gadget", "application/json", strings.NewReader(review(admission.Create, `{"spec":{"color":"blue"}}`, "")))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"allowed":true`)
	assert.Equal(t, int64(1), servedSerial(t, addr, roots))

	next := servingCert(t, dir, 2) // written over the files in place
	assert.Equal(t, int64(2), servedSerial(t, addr, next), "the rotated certificate is served")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), []byte("not a certificate"), 0o600))
	assert.Equal(t, int64(2), servedSerial(t, addr, next), "a broken pair keeps the previous one")
}

// A Manager with a Server serves it before its cache: the API server
// may call a webhook for a write while the cache is still listing, so the
// webhook answers even when the cache never syncs. /readyz is ready only once
// the cache has synced and while the webhook server serves; when the Manager
// stops, so does the server.
// Diagram: none. client-go: controller-runtime manager (webhooks are its first runnables)
func TestManagerServesWebhooksBeforeItsCacheAndCountsThemInReadyz(t *testing.T) {
	dir := t.TempDir()
	roots := servingCert(t, dir, 1)
	ws, err := admission.NewServer(admission.ServerOptions{
		BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	require.NoError(t, ws.Register("/validate-gadget", admission.Webhook(admission.ValidatingWebhook[*Gadget](gadgetGVK, &gadgetRules{}), ctrltest.Quiet)))
	neverSyncs := func(schema.GroupVersionResource, string) reflector.ListerWatcher { return blockingLW{} }
	m, err := manager.New(manager.Options{NewListerWatcher: neverSyncs, Server: ws, Logger: ctrltest.Quiet})
	require.NoError(t, err)
	_, err = m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
	require.NoError(t, err)
	assert.Same(t, ws, m.GetWebhookServer())

	stop := ctrltest.RunManager(t, m)
	deadline := time.Now().Add(10 * time.Second)
	for ws.Addr() == nil || !ws.Serving() {
		require.True(t, time.Now().Before(deadline), "the webhook server never served")
		time.Sleep(5 * time.Millisecond) // polling a real socket's readiness, not waiting for an event
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := hc.Post("https://"+ws.Addr().String()+"/validate-gadget", "application/json", strings.NewReader(review(admission.Create, `{"spec":{}}`, "")))
	require.NoError(t, err, "the webhook answers while the cache has not synced")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), `"allowed":false`)
	code, text := probe(m.HealthHandler(), "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, text, "cache not synced")

	require.NoError(t, stop())
	assert.False(t, ws.Serving())
	_, err = hc.Post("https://"+ws.Addr().String()+"/validate-gadget", "application/json", strings.NewReader("{}"))
	assert.Error(t, err, "the webhook server stopped with the Manager")
}

// A webhook server that cannot start — its certificate does not load, or
// its address is taken — fails the Manager's Start at once, with the reason.
// Registering a path twice, or one without a leading slash, is an error, and
// so are options without a certificate.
// Diagram: none. client-go: controller-runtime webhook.Server.Start
func TestWebhookServerMisuseIsAClearError(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), []byte("junk"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), []byte("junk"), 0o600))
	ws, err := admission.NewServer(admission.ServerOptions{BindAddress: "127.0.0.1:0", CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), Logger: ctrltest.Quiet})
	require.NoError(t, err)
	srv := ctrltest.NewServer(t)
	m := ctrltest.NewManager(t, srv, manager.Options{Server: ws})

	err = m.Start(context.Background())

	assert.ErrorContains(t, err, "controller: webhook server: serving certificate")
	assert.ErrorContains(t, ws.Register("no-slash", http.NotFoundHandler()), `path "no-slash" must start with /`)
	require.NoError(t, ws.Register("/a", http.NotFoundHandler()))
	assert.ErrorContains(t, ws.Register("/a", http.NotFoundHandler()), `path "/a" is already registered`)
	_, err = admission.NewServer(admission.ServerOptions{BindAddress: "127.0.0.1:0"})
	assert.ErrorContains(t, err, "CertFile and KeyFile are required")
}

// probe calls a health handler in-process.
func probe(h http.Handler, path string) (int, string) {
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest(http.MethodGet, path, nil))
	return rr.Code, rr.Body.String()
}

// blockingLW is a ListerWatcher whose List waits for its context: a cache
// that never syncs.
type blockingLW struct{}

func (blockingLW) List(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (blockingLW) Watch(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
