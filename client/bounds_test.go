package client_test

import (
	"context"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/informerlab/informerlab/client"
)

// recorder is an httptest handler that records the method, path and
// Authorization header of every request, and answers with answer.
type recorder struct {
	mu     sync.Mutex
	seen   []string
	answer func(w http.ResponseWriter, r *http.Request)
}

func (h *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization"))
	h.mu.Unlock()
	h.answer(w, r)
}

func (h *recorder) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func newClient(t testing.TB, cfg client.Config) *client.Client {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c, err := client.New(&cfg, nil)
	require.NoError(t, err)
	return c
}

func newConfigMap() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("ns")
	u.SetName("cm")
	return u
}

// A redirect answered to a write is not followed: net/http would re-send a
// POST as a GET, the GET would succeed, and Create would return no error for
// an object that was never created. The caller gets an error that says what
// happened, and the server sees the one POST.
// Diagram: none. client-go: rest.Request follows redirects with net/http's defaults.
func TestRedirectedCreateIsAnErrorNotASilentNoOp(t *testing.T) {
	h := &recorder{answer: func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			http.Redirect(w, r, "/api/v1/namespaces/ns/configmaps", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`)
	}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := newClient(t, client.Config{Server: srv.URL})

	_, err := c.Resource(configMaps).Create(t.Context(), newConfigMap(), metav1.CreateOptions{})

	require.Error(t, err)
	assert.Contains(t, err.Error(), "301")
	assert.Contains(t, err.Error(), "only reads follow redirects")
	assert.Equal(t, []string{"POST /api/v1/namespaces/ns/configmaps auth="}, h.requests())
}

// A read may follow a redirect within the server (same scheme, host and
// port), with its token. A redirect to another port, or from https to plain
// http, is not followed at all: the bearer token never reaches a server it was
// not given for, and never travels unencrypted.
// Diagram: step 1. client-go: net/http strips Authorization only for another domain, not another port or scheme.
func TestRedirectsKeepTheTokenWithItsServer(t *testing.T) {
	elsewhere := &recorder{answer: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, aConfigMap)
	}}
	other := httptest.NewServer(elsewhere)
	defer other.Close()

	for name, newServer := range map[string]func(http.Handler) *httptest.Server{
		"http to another port": httptest.NewServer,
		"https to http":        httptest.NewTLSServer,
	} {
		t.Run(name, func(t *testing.T) {
			h := &recorder{answer: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/moved/cm":
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, aConfigMap)
				case "/api/v1/namespaces/ns/configmaps/cm":
					http.Redirect(w, r, "/moved/cm", http.StatusTemporaryRedirect)
				default:
					http.Redirect(w, r, other.URL+"/api/v1/namespaces/ns/configmaps/cm", http.StatusTemporaryRedirect)
				}
			}}
			srv := newServer(h)
			defer srv.Close()
			cfg := client.Config{Server: srv.URL, BearerToken: "tok"}
			if srv.TLS != nil {
				cfg.TLS.CAData = certPEM(srv)
			}
			c := newClient(t, cfg)

			_, within := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
			_, away := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "away", metav1.GetOptions{})

			assert.NoError(t, within, "a redirect within the server is followed")
			assert.Equal(t, []string{
				"GET /api/v1/namespaces/ns/configmaps/cm auth=Bearer tok",
				"GET /moved/cm auth=Bearer tok",
				"GET /api/v1/namespaces/ns/configmaps/away auth=Bearer tok",
			}, h.requests())
			require.Error(t, away)
			assert.Contains(t, away.Error(), "307")
			assert.Contains(t, away.Error(), "credentials stay with the server they are for")
			assert.Empty(t, elsewhere.requests(), "the other server saw nothing, token or not")
		})
	}
}

// blockUntilCancelled is a transport whose requests get no answer until their
// context ends: a server that accepted the connection and went silent.
func blockUntilCancelled(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

// A request that gets no answer at all fails after Config.Timeout (60 s by
// default, kube-apiserver's own limit) with an error that says so, and that
// utilnet.IsTimeout recognises. A watch is held to the same limit while it
// waits for its response headers.
// Diagram: step 1. client-go: none by default (rest.Config.Timeout is zero).
func TestRequestsWithNoAnswerTimeOut(t *testing.T) {
	for _, verb := range []string{"get", "list", "watch", "create"} {
		t.Run(verb, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newClient(t, client.Config{Server: "http://in-process.test"})
				client.SetRoundTripper(c, blockUntilCancelled)
				rc := c.Resource(configMaps).Namespace("ns")
				began := time.Now()

				var err error
				switch verb {
				case "get":
					_, err = rc.Get(t.Context(), "cm", metav1.GetOptions{})
				case "list":
					_, err = rc.List(t.Context(), metav1.ListOptions{})
				case "watch":
					_, err = rc.Watch(t.Context(), metav1.ListOptions{})
				case "create":
					_, err = rc.Create(t.Context(), newConfigMap(), metav1.CreateOptions{})
				}

				require.Error(t, err)
				assert.Equal(t, client.DefaultTimeout, time.Since(began))
				assert.True(t, utilnet.IsTimeout(err), "a timeout error: %v", err)
				assert.Contains(t, err.Error(), "within 1m0s (Config.Timeout)")
			})
		})
	}
}

// Discovery is held to Config.Timeout too: a list without a scheme asks it
// which kind the resource holds, and a server that takes the list and then
// never answers discovery must not hold the list forever.
// Diagram: step 1. client-go: none by default (rest.Config.Timeout is zero).
func TestDiscoveryWithNoAnswerTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newClient(t, client.Config{Server: "http://in-process.test"})
		client.SetRoundTripper(c, blockUntilCancelled)
		began := time.Now()

		_, err := c.ServerResourcesForGroupVersion(t.Context(), schema.GroupVersion{Version: "v1"})

		require.Error(t, err)
		assert.Equal(t, client.DefaultTimeout, time.Since(began))
	})
}

// The Timeout covers reading the body too: a list whose answer starts and
// then stalls fails when the Timeout runs out. A negative Timeout turns the
// bound off, leaving the caller's context as the only one.
// Diagram: step 1. client-go: rest.Config.Timeout (zero by default).
func TestTimeoutCoversTheBodyAndCanBeTurnedOff(t *testing.T) {
	stalled := func(req *http.Request) (*http.Response, error) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, `{"kind":"ConfigMapList","apiVersion":"v1","items":[`)
			<-req.Context().Done()
			pw.CloseWithError(req.Context().Err())
		}()
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: pr}, nil
	}
	synctest.Test(t, func(t *testing.T) {
		c := newClient(t, client.Config{Server: "http://in-process.test", Timeout: 5 * time.Second})
		client.SetRoundTripper(c, stalled)
		began := time.Now()

		_, err := c.Resource(configMaps).List(t.Context(), metav1.ListOptions{})

		require.Error(t, err)
		assert.Equal(t, 5*time.Second, time.Since(began))
		assert.Contains(t, err.Error(), "client: list configmaps: no complete answer within 5s (Config.Timeout)")
	})
	synctest.Test(t, func(t *testing.T) {
		c := newClient(t, client.Config{Server: "http://in-process.test", Timeout: -1})
		client.SetRoundTripper(c, stalled)
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		began := time.Now()

		_, err := c.Resource(configMaps).List(ctx, metav1.ListOptions{})

		require.Error(t, err)
		assert.Equal(t, time.Hour, time.Since(began), "only the caller's context ended it")
	})
}

// Once a watch's headers have arrived it runs for as long as the server keeps
// it open: the Timeout bounds only the wait for the answer to start.
// Diagram: step 1. client-go: rest.Request.Watch (no timeout on the stream).
func TestAStartedWatchOutlivesTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		c := newClient(t, client.Config{Server: "http://in-process.test", Timeout: 5 * time.Second})
		client.SetRoundTripper(c, func(req *http.Request) (*http.Response, error) {
			context.AfterFunc(req.Context(), func() { pw.CloseWithError(req.Context().Err()) })
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: pr}, nil
		})
		w, err := c.Resource(configMaps).Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		defer w.Stop()

		time.Sleep(10 * time.Minute)
		go func() {
			_, _ = io.WriteString(pw, `{"type":"ADDED","object":`+aConfigMap+"}\n")
		}()
		ev, ok := <-w.ResultChan()

		require.True(t, ok, "the watch is still open after ten minutes")
		assert.Equal(t, "ADDED", string(ev.Type))
	})
}

// MaxResponseBytes caps a response body: a list larger than the cap fails
// with an error that names the setting, having read no more than the cap and
// one byte; a list of exactly the cap's size is fine.
// Diagram: step 1. client-go: none (a list body is read whole, however large).
func TestMaxResponseBytesCapsAList(t *testing.T) {
	body := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` + aConfigMap + `]}`
	var sent atomic.Int64
	serve := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		n, _ := io.WriteString(w, body+strings.Repeat(" ", 1<<20)) // trailing space: valid JSON, larger body
		sent.Store(int64(n))
	}
	srv := httptest.NewServer(http.HandlerFunc(serve))
	defer srv.Close()
	exact := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	defer exact.Close()

	_, tooLarge := newClient(t, client.Config{Server: srv.URL, MaxResponseBytes: 4096}).Resource(configMaps).List(t.Context(), metav1.ListOptions{})
	list, err := newClient(t, client.Config{Server: exact.URL, MaxResponseBytes: int64(len(body))}).Resource(configMaps).List(t.Context(), metav1.ListOptions{})

	require.Error(t, tooLarge)
	assert.Equal(t, "client: list configmaps: the response is larger than MaxResponseBytes (4096 bytes); raise Config.MaxResponseBytes, or list in pages (ListOptions.Limit)", tooLarge.Error())
	require.NoError(t, err)
	assert.Len(t, list.(*unstructured.UnstructuredList).Items, 1)
}

// Clients made from the same settings share one transport, and so its
// connections: a hundred clients used one after another leave one idle
// connection (two goroutines), not a hundred.
// Diagram: none. client-go: transport.New's tlsCache.
func TestClientsWithTheSameSettingsShareConnections(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, aConfigMap)
	}))
	defer srv.Close()
	warm := newClient(t, client.Config{Server: srv.URL})
	_, err := warm.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
	require.NoError(t, err)
	before := runtime.NumGoroutine()

	for range 100 {
		c := newClient(t, client.Config{Server: srv.URL})
		_, err := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
		require.NoError(t, err)
	}

	assert.LessOrEqual(t, runtime.NumGoroutine()-before, 4, "a hundred clients reuse the first one's connection")
}

// certPEM returns the PEM of an httptest TLS server's certificate.
func certPEM(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// clientConfig is a Config for server with logs discarded.
func clientConfig(server string) client.Config {
	return client.Config{Server: server, Logger: slog.New(slog.DiscardHandler)}
}
