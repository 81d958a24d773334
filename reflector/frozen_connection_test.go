package reflector_test

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/freezeproxy"
	"github.com/informerlab/informerlab/reflector"
)

// overHTTP2Via serves srv over TLS with HTTP/2, as every real API server is,
// behind a freezing proxy, and returns a client that reaches it through the
// proxy with the given health check.
func overHTTP2Via(t *testing.T, srv *fakeapi.Server, hc client.HealthCheck) (*client.Client, *freezeproxy.Proxy) {
	t.Helper()
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	proxy, err := freezeproxy.Start(ts.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	cfg, err := client.ConfigFromURL("https://" + proxy.Addr())
	require.NoError(t, err)
	cfg.TLS.CAData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	cfg.Logger = discard()
	cfg.HealthCheck = hc
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	return c, proxy
}

// Over TLS the client speaks HTTP/2, and the list, the watch and every
// re-watch share one TCP connection. When that connection goes dead silently,
// the IdleTimeout ends the silent watch, but the re-watch goes onto the same
// dead connection and would wait for an answer forever: the informer that
// silently stops, one layer down. The HTTP/2 health check pings the silent
// connection, gets no answer, and closes it; the re-watch fails, the Reflector
// relists on a new connection, and sees the change made after the freeze.
// Diagram: step 1. client-go: http2 ReadIdleTimeout/PingTimeout (util/net.SetTransportDefaults)
func TestOverHTTP2AFrozenConnectionIsDroppedAndTheReflectorRecovers(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{BookmarkInterval: 100 * time.Millisecond})
	t.Cleanup(srv.Close)
	c, proxy := overHTTP2Via(t, srv, client.HealthCheck{PingAfter: 500 * time.Millisecond, PingTimeout: 500 * time.Millisecond})
	inproc := srv.Resource(configMapsGVR).Namespace("default")
	lw := newCountingLW(c.Resource(configMapsGVR).Namespace("default"))
	store := newWaitStore()
	const wait = 20 * time.Second
	_, stop := runReflector(t, lw, store, reflector.Options{
		Backoff:     reflector.Backoff{Initial: 10 * time.Millisecond, Factor: 1},
		IdleTimeout: time.Second,
	})
	lw.waitFor(t, wait, "the first watch", func() bool { return lw.count("watch") >= 1 })
	_, err := inproc.Create(t.Context(), configMap("default", "a"), metav1.CreateOptions{})
	require.NoError(t, err)
	store.waitFor(t, wait, "add a", func() bool { return store.has("default/a") })

	proxy.Freeze()
	frozeAt := time.Now()
	_, err = inproc.Create(t.Context(), configMap("default", "b"), metav1.CreateOptions{})
	require.NoError(t, err)

	store.waitFor(t, wait, "add b, made after the freeze", func() bool { return store.has("default/b") })
	t.Logf("the change made after the freeze arrived %v later, after %d lists and %d watches",
		time.Since(frozeAt).Round(100*time.Millisecond), lw.count("list"), lw.count("watch"))
	stop()
}

// A server (or a proxy) that takes the watch request and never sends the
// response headers: the Reflector's Watch call itself would wait forever and
// the cache would freeze at the list. The idle clock runs from the moment the
// request is sent, so after IdleTimeout the request is abandoned and a new
// watch goes out; this one is answered, and the change made meanwhile arrives.
// Diagram: step 1. client-go: none (client-go waits for the headers until the watch's timeoutSeconds).
func TestOverHTTPAWatchWhoseHeadersNeverComeIsSentAgain(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{BookmarkInterval: 100 * time.Millisecond})
	t.Cleanup(srv.Close)
	var hung atomic.Int32
	silentFirstWatch := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" && hung.Add(1) == 1 {
			<-r.Context().Done() // the headers never come
			return
		}
		srv.Handler().ServeHTTP(w, r)
	})
	ts := httptest.NewServer(silentFirstWatch)
	t.Cleanup(ts.Close)
	cfg, err := client.ConfigFromURL(ts.URL)
	require.NoError(t, err)
	cfg.Logger = discard()
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	lw := newCountingLW(c.Resource(configMapsGVR).Namespace("default"))
	store := newWaitStore()
	const wait = 20 * time.Second
	_, stop := runReflector(t, lw, store, reflector.Options{IdleTimeout: time.Second})
	lw.waitFor(t, wait, "the first watch", func() bool { return lw.count("watch") >= 1 })

	_, err = srv.Resource(configMapsGVR).Namespace("default").Create(t.Context(), configMap("default", "a"), metav1.CreateOptions{})
	require.NoError(t, err)

	store.waitFor(t, wait, "add a, made while the first watch hung", func() bool { return store.has("default/a") })
	require.Equal(t, 1, lw.count("list"), "no relist: only the watch was sent again")
	require.GreaterOrEqual(t, lw.count("watch"), 2)
	stop()
}
