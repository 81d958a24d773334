package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// hostileServer answers every request with answer and records, per request,
// the method, path and Authorization header it came with.
type hostileServer struct {
	*httptest.Server
	mu   sync.Mutex // guards seen
	seen []string
}

func newHostileServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *hostileServer {
	t.Helper()
	h := &hostileServer{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen = append(h.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		h.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hostileServer) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// clientGoFor is a client-go clientset for server, speaking JSON, with token.
func clientGoFor(t *testing.T, server, token string) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: server, BearerToken: token, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	require.NoError(t, err)
	return cs
}

// informerlabFor is an informerlab client for server with token, typed for ConfigMaps.
func informerlabFor(t *testing.T, server, token string) *client.ResourceClient {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(scheme))
	c, err := client.New(&client.Config{Server: server, BearerToken: token, Logger: slog.New(slog.DiscardHandler)}, scheme)
	require.NoError(t, err)
	return c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns")
}

const hostileList = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[` +
	`{"kind":"Secret","apiVersion":"v1","metadata":{"name":"token","namespace":"ns","resourceVersion":"4"},"data":{"token":"c2VjcmV0"}}]}`

// The hostile-server attacks on the client, side by side with client-go:
// each row runs the same attack against both clients and records what each
// did. informerlab must be safe in every row; client-go's outcome is printed
// for comparison (v0.37.2: unsafe in all four; its Config redacts only when
// printed through a pointer). The rows that need minutes of waiting (a
// Retry-After of a day, a watch whose headers never come) are shown in the
// client and reflector packages' synctest tests instead.
// Diagram: step 1. client-go: rest.Request, the typed clientset.
func TestHostileServerSideBySideWithClientGo(t *testing.T) {
	type outcome struct {
		safe bool
		what string
	}
	type attack struct {
		name     string
		clientGo func(t *testing.T) outcome
		informer func(t *testing.T) outcome
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}

	redirectCreate := func(t *testing.T) *hostileServer {
		return newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				http.Redirect(w, r, r.URL.Path+"/cm", http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","resourceVersion":"1"}}`)
		})
	}
	created := func(err error, s *hostileServer) outcome {
		if err == nil {
			return outcome{false, fmt.Sprintf("Create returned no error; the server saw %v", s.requests())}
		}
		return outcome{true, "Create failed: " + err.Error()}
	}

	tokenAway := func(t *testing.T) (*hostileServer, *hostileServer) {
		elsewhere := newHostileServer(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","resourceVersion":"1"}}`)
		})
		first := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
		})
		return first, elsewhere
	}
	leaked := func(elsewhere *hostileServer) outcome {
		for _, r := range elsewhere.requests() {
			if strings.HasSuffix(r, "Bearer tok") {
				return outcome{false, "the token reached the other port: " + r}
			}
		}
		return outcome{true, fmt.Sprintf("the other port saw %d requests, none with the token", len(elsewhere.requests()))}
	}

	listed := func(kinds []string, err error) outcome {
		if err != nil {
			return outcome{true, "List failed: " + err.Error()}
		}
		return outcome{false, fmt.Sprintf("List returned items %v from a Secret", kinds)}
	}
	hostileLister := func(t *testing.T) *hostileServer {
		return newHostileServer(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, hostileList)
		})
	}

	attacks := []attack{
		{
			name: "a 301 on Create",
			clientGo: func(t *testing.T) outcome {
				s := redirectCreate(t)
				_, err := clientGoFor(t, s.URL, "").CoreV1().ConfigMaps("ns").Create(context.Background(), cm, metav1.CreateOptions{})
				return created(err, s)
			},
			informer: func(t *testing.T) outcome {
				s := redirectCreate(t)
				_, err := informerlabFor(t, s.URL, "").Create(context.Background(), cm, metav1.CreateOptions{})
				return created(err, s)
			},
		},
		{
			name: "a redirect to another port",
			clientGo: func(t *testing.T) outcome {
				first, elsewhere := tokenAway(t)
				_, _ = clientGoFor(t, first.URL, "tok").CoreV1().ConfigMaps("ns").Get(context.Background(), "cm", metav1.GetOptions{})
				return leaked(elsewhere)
			},
			informer: func(t *testing.T) outcome {
				first, elsewhere := tokenAway(t)
				_, _ = informerlabFor(t, first.URL, "tok").Get(context.Background(), "cm", metav1.GetOptions{})
				return leaked(elsewhere)
			},
		},
		{
			name: "a Secret inside a ConfigMapList",
			clientGo: func(t *testing.T) outcome {
				list, err := clientGoFor(t, hostileLister(t).URL, "").CoreV1().ConfigMaps("ns").List(context.Background(), metav1.ListOptions{})
				var kinds []string
				if err == nil {
					for _, item := range list.Items {
						kinds = append(kinds, "ConfigMap "+item.Name)
					}
				}
				return listed(kinds, err)
			},
			informer: func(t *testing.T) outcome {
				list, err := informerlabFor(t, hostileLister(t).URL, "").List(context.Background(), metav1.ListOptions{})
				var kinds []string
				if err == nil {
					for _, item := range list.(*corev1.ConfigMapList).Items {
						kinds = append(kinds, item.Kind+" "+item.Name)
					}
				}
				return listed(kinds, err)
			},
		},
		{
			name: "printing the config",
			clientGo: func(t *testing.T) outcome {
				out := fmt.Sprintf("%v %+v %#v", &rest.Config{Host: "https://h", BearerToken: "tok-secret"}, rest.Config{BearerToken: "tok-secret"}, &rest.Config{BearerToken: "tok-secret"})
				return outcome{!strings.Contains(out, "tok-secret"), "printed the token: " + fmt.Sprint(strings.Contains(out, "tok-secret"))}
			},
			informer: func(t *testing.T) outcome {
				out := fmt.Sprintf("%v %+v %#v", &client.Config{Server: "https://h", BearerToken: "tok-secret"}, client.Config{BearerToken: "tok-secret"}, &client.Config{BearerToken: "tok-secret"})
				return outcome{!strings.Contains(out, "tok-secret"), "printed the token: " + fmt.Sprint(strings.Contains(out, "tok-secret"))}
			},
		},
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-34s | %-9s | %-9s\n", "attack", "client-go", "informerlab")
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			cg, il := a.clientGo(t), a.informer(t)
			t.Logf("client-go:   %s", cg.what)
			t.Logf("informerlab: %s", il.what)
			fmt.Fprintf(&table, "%-34s | %-9s | %-9s\n", a.name, verdict(cg.safe), verdict(il.safe))

			assert.True(t, il.safe, "informerlab must be safe: %s", il.what)
		})
	}
	t.Logf("\n%s", table.String())
}

func verdict(safe bool) string {
	if safe {
		return "safe"
	}
	return "UNSAFE"
}

// The attack that takes waiting to show: a server (or a proxy) that accepts a
// watch request and never sends the response headers. Both informers list
// the same in-process fakeapi through one HTTP front that leaves each
// client's first watch unanswered. client-go's reflector waits inside its
// watch request until the request's own timeout (the watch's timeoutSeconds,
// 5 to 10 minutes: 5m45s in this run), and its cache does not see the
// ConfigMap created after the list meanwhile; informerlab's Reflector gives
// the request up after its IdleTimeout (1 s here), watches again and gets it.
// Diagram: step 1. client-go: tools/cache.Reflector (the watch request is bounded only by timeoutSeconds)
func TestHeaderlessWatchSideBySideWithClientGo(t *testing.T) {
	withWatchList(t, false) // both list, then watch: the watch is what hangs
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	watches := map[string]int{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			agent := strings.SplitN(r.UserAgent(), "/", 2)[0]
			mu.Lock()
			watches[agent]++
			first := watches[agent] == 1
			mu.Unlock()
			if first {
				<-r.Context().Done() // no headers, ever
				return
			}
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	cs, err := kubernetes.NewForConfig(&rest.Config{Host: front.URL, UserAgent: "client-go-e2e",
		ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	require.NoError(t, err)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
	theirs := factory.Core().V1().ConfigMaps().Informer()
	factory.Start(ctx.Done())

	scheme := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(scheme))
	c, err := client.New(&client.Config{Server: front.URL, UserAgent: "informerlab-e2e", Logger: slog.New(slog.DiscardHandler)}, scheme)
	require.NoError(t, err)
	ours := informer.NewSharedIndexInformer(c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default"),
		&corev1.ConfigMap{}, 0, indexer.Indexers{}, informer.WithLogger(slog.New(slog.DiscardHandler)),
		informer.WithReflectorOptions(reflector.Options{IdleTimeout: time.Second, Logger: slog.New(slog.DiscardHandler)}))
	oursDone := make(chan struct{})
	go func() { defer close(oursDone); ours.Run(ctx) }()
	defer func() { cancel(); <-oursDone; factory.Shutdown() }()
	syncCtx, syncCancel := context.WithTimeout(ctx, 20*time.Second)
	defer syncCancel()
	require.True(t, cache.WaitForCacheSync(syncCtx.Done(), theirs.HasSynced), "client-go's informer listed")
	require.True(t, informer.WaitForCacheSync(syncCtx, ours), "informerlab's informer listed")
	waitUntil(t, 10*time.Second, "both informers to send their first watch", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return watches["client-go-e2e"] >= 1 && watches["informerlab-e2e"] >= 1
	})

	_, err = srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").Create(ctx, newConfigMapObject("after-the-list"), metav1.CreateOptions{})
	require.NoError(t, err)

	waitUntil(t, 20*time.Second, "informerlab's cache to get the ConfigMap", func() bool {
		_, ok, _ := ours.GetIndexer().GetByKey("default/after-the-list")
		return ok
	})
	_, theirsHas, _ := theirs.GetIndexer().GetByKey("default/after-the-list")
	mu.Lock()
	defer mu.Unlock()
	t.Logf("watch requests: client-go %d, informerlab %d; client-go's cache has the ConfigMap: %v",
		watches["client-go-e2e"], watches["informerlab-e2e"], theirsHas)
	assert.False(t, theirsHas, "client-go v0.37 waits for the headers until the watch's timeout (if this changes, client-go caught up)")
	assert.Equal(t, 1, watches["client-go-e2e"], "client-go never sent a second watch")
	assert.GreaterOrEqual(t, watches["informerlab-e2e"], 2, "informerlab gave the silent request up and watched again")
}

// newConfigMapObject is an unstructured ConfigMap in default.
func newConfigMapObject(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("default")
	u.SetName(name)
	return u
}

// waitUntil polls cond until it holds, failing the test after d.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "timed out after %v waiting for %s", d, what)
		time.Sleep(10 * time.Millisecond) // real sockets: poll with a deadline
	}
}
