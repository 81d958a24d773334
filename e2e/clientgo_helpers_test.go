package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// clientset is a client-go clientset that records the requests it sends.
type clientset struct {
	kubernetes.Interface
	requests *requestLog
}

// newClientset builds a client-go clientset from the kubeconfig fakeapi
// wrote, asking for JSON: fakeapi does not speak protobuf, which typed
// clientsets otherwise send.
func newClientset(t *testing.T, p *fakeapiProcess) *clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", p.Kubeconfig)
	require.NoError(t, err)
	require.Equal(t, p.URL, cfg.Host, "the kubeconfig names the server")
	require.Equal(t, p.Token, cfg.BearerToken, "the kubeconfig carries the token")
	cfg.ContentType = "application/json"
	log := &requestLog{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &recordingTransport{next: rt, log: log} })
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return &clientset{Interface: cs, requests: log}
}

// requestLog records each request's method and URL as it is sent (a watch
// is recorded when it starts, not when it ends).
type requestLog struct {
	mu   sync.Mutex // guards sent
	sent []*url.URL
}

type recordingTransport struct {
	next http.RoundTripper
	log  *requestLog
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		rt.log.mu.Lock()
		rt.log.sent = append(rt.log.sent, req.URL)
		rt.log.mu.Unlock()
	}
	return rt.next.RoundTrip(req)
}

// configMapReadKinds lists the GETs sent for ConfigMaps in ns, in order:
// "stream" (a streaming list: a watch with sendInitialEvents=true), "list"
// or "watch".
func (l *requestLog) configMapReadKinds(ns string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var kinds []string
	for _, u := range l.sent {
		if u.Path != "/api/v1/namespaces/"+ns+"/configmaps" {
			continue
		}
		q := u.Query()
		switch {
		case q.Get("sendInitialEvents") == "true":
			kinds = append(kinds, "stream")
		case q.Get("watch") == "true":
			kinds = append(kinds, "watch")
		default:
			kinds = append(kinds, "list")
		}
	}
	return kinds
}

// configMapReads counts the GETs sent for ConfigMaps in ns: lists
// (including streaming lists, which are watches with sendInitialEvents=true)
// and plain watches.
func (l *requestLog) configMapReads(ns string) (lists, watches int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.sent {
		if u.Path != "/api/v1/namespaces/"+ns+"/configmaps" {
			continue
		}
		q := u.Query()
		if q.Get("watch") == "true" && q.Get("sendInitialEvents") != "true" {
			watches++
		} else {
			lists++
		}
	}
	return lists, watches
}

// createConfigMap creates a ConfigMap, and its namespace first if need be:
// cmd/fakeapi, like a real server, refuses a create in a missing namespace.
func createConfigMap(t *testing.T, cs *clientset, ns, name string, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: data}
	created, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{})
	require.NoError(t, err)
	return created
}

// handlerEvent is one call of an informer's event handler.
type handlerEvent struct {
	Type            string // "add", "update" or "delete"
	Name            string
	IsInInitialList bool   // add only
	Tombstone       bool   // delete only: the object came as cache.DeletedFinalStateUnknown
	OldRV, RV       string // OldRV for update only
	Data            map[string]string
}

func (e handlerEvent) String() string {
	return fmt.Sprintf("%s %s initial=%v tombstone=%v rv=%s->%s data=%v",
		e.Type, e.Name, e.IsInInitialList, e.Tombstone, e.OldRV, e.RV, e.Data)
}

// recorder is a ResourceEventHandler that sends every call to a channel.
type recorder struct{ events chan handlerEvent }

func newRecorder() *recorder { return &recorder{events: make(chan handlerEvent, 1000)} }

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	cm := obj.(*corev1.ConfigMap)
	r.events <- handlerEvent{Type: "add", Name: cm.Name, IsInInitialList: isInInitialList, RV: cm.ResourceVersion, Data: cm.Data}
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	o, n := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
	r.events <- handlerEvent{Type: "update", Name: n.Name, OldRV: o.ResourceVersion, RV: n.ResourceVersion, Data: n.Data}
}

func (r *recorder) OnDelete(obj any) {
	ev := handlerEvent{Type: "delete"}
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		ev.Tombstone = true
		obj = tomb.Obj
	}
	cm := obj.(*corev1.ConfigMap)
	ev.Name, ev.RV, ev.Data = cm.Name, cm.ResourceVersion, cm.Data
	r.events <- ev
}

// next returns the next handler call, failing the test at the deadline.
func (r *recorder) next(t *testing.T) handlerEvent {
	t.Helper()
	select {
	case ev := <-r.events:
		return ev
	case <-time.After(deadline):
		require.FailNow(t, "no informer event in time")
		return handlerEvent{}
	}
}

// collect returns the next n handler calls, sorted by name then type.
func (r *recorder) collect(t *testing.T, n int) []handlerEvent {
	t.Helper()
	evs := make([]handlerEvent, 0, n)
	timeout := time.After(deadline)
	for len(evs) < n {
		select {
		case ev := <-r.events:
			evs = append(evs, ev)
		case <-timeout:
			require.FailNowf(t, "too few informer events in time", "want %d, got %d: %v", n, len(evs), evs)
		}
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].Name != evs[j].Name {
			return evs[i].Name < evs[j].Name
		}
		return evs[i].Type < evs[j].Type
	})
	return evs
}

// withWatchList sets client-go's WatchListClient feature gate for the
// informers created until the test ends: on, the reflector's initial list
// and relists are watches with sendInitialEvents=true (the default since
// v0.35); off, they are plain paginated lists.
func withWatchList(t *testing.T, on bool) {
	original := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(watchListGate{Gates: original, on: on})
	t.Cleanup(func() { clientfeatures.ReplaceFeatureGates(original) })
}

type watchListGate struct {
	clientfeatures.Gates
	on bool
}

func (g watchListGate) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.WatchListClient {
		return g.on
	}
	return g.Gates.Enabled(f)
}

// startConfigMapInformer starts client-go's shared informer for ConfigMaps
// in ns with rec as its handler, waits for it to sync, and stops it when
// the test ends (before the fakeapi process, which was started earlier).
func startConfigMapInformer(t *testing.T, cs *clientset, ns string, rec *recorder) cache.SharedIndexInformer {
	t.Helper()
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	_, err := inf.AddEventHandler(rec)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	syncCtx, syncCancel := context.WithTimeout(ctx, deadline)
	defer syncCancel()
	require.True(t, cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced), "informer did not sync")
	return inf
}

// cacheState and serverState describe a set of ConfigMaps as sorted
// "name@resourceVersion data" lines, for comparing a cache with the server.
func cacheState(inf cache.SharedIndexInformer) []string {
	var out []string
	for _, obj := range inf.GetStore().List() {
		cm := obj.(*corev1.ConfigMap)
		out = append(out, fmt.Sprintf("%s@%s %v", cm.Name, cm.ResourceVersion, cm.Data))
	}
	sort.Strings(out)
	return out
}

func serverState(t *testing.T, cs *clientset, ns string) []string {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, cm := range list.Items {
		out = append(out, fmt.Sprintf("%s@%s %v", cm.Name, cm.ResourceVersion, cm.Data))
	}
	sort.Strings(out)
	return out
}
