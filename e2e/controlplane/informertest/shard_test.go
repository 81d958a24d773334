package informertest

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/informer"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
)

// shardLog collects log lines, for the client-side fallback's warning.
type shardLog struct {
	mu    sync.Mutex // guards lines
	lines []string
}

func (l *shardLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *shardLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *shardLog) WithGroup(string) slog.Handler            { return l }
func (l *shardLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, r.Message)
	return nil
}

func (l *shardLog) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, substr) {
			n++
		}
	}
	return n
}

// shardView is what one handler has been told: the keys it holds, and
// every add and delete, guarded by mu; changed is signalled after each.
type shardView struct {
	mu      sync.Mutex
	keys    map[string]bool
	adds    []string
	deletes []string
	changed chan struct{}
}

func (v *shardView) record(key string, add bool) {
	v.mu.Lock()
	if add {
		v.keys[key] = true
		v.adds = append(v.adds, key)
	} else {
		delete(v.keys, key)
		v.deletes = append(v.deletes, key)
	}
	v.mu.Unlock()
	select {
	case v.changed <- struct{}{}:
	default:
	}
}

func (v *shardView) holds(want []string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	got := make([]string, 0, len(v.keys))
	for k := range v.keys {
		got = append(got, k)
	}
	sort.Strings(got)
	return slices.Equal(got, want)
}

// take returns the adds and deletes so far, sorted, and forgets them.
func (v *shardView) take() (adds, deletes []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	adds, deletes = v.adds, v.deletes
	v.adds, v.deletes = nil, nil
	sort.Strings(adds)
	sort.Strings(deletes)
	return adds, deletes
}

func (v *shardView) waitFor(t *testing.T, want []string) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for !v.holds(want) {
		select {
		case <-v.changed:
		case <-deadline.C:
			require.FailNow(t, "the informer never held its shard", "want %v", want)
		}
	}
}

// keyOf is an object's namespace/name; a tombstone's key.
func keyOf(obj any) string {
	if d, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		return d.Key
	}
	m := obj.(metav1.Object)
	return m.GetNamespace() + "/" + m.GetName()
}

// TestShardedInformerOnKubeAPIServer: on kube-apiserver, a sharded
// informer of ConfigMaps (a built-in kind) and one of Foos (a custom
// resource) each cache exactly the low half of the uid hash range; switched
// to the high half, each relists, and its handler is told of every object
// that left (OnDelete) and joined (OnAdd). It runs on two control planes:
//
//   - gate on: the server filters, so the client-side re-check finds nothing
//     to drop and says nothing;
//   - gate off: the server ignores the selector and sends every object; the
//     Reflector filters with the same hash, so the cache and the handler see
//     exactly the same shares, and the log says so once.
//
// Diagram: steps 1-6. kube-apiserver: ShardedListAndWatch (KEP-5866), on and off.
func TestShardedInformerOnKubeAPIServer(t *testing.T) {
	t.Run("gate on", func(t *testing.T) { shardedInformerMovesHalves(t, testenv.ControlPlane(t), true) })
	t.Run("gate off", func(t *testing.T) { shardedInformerMovesHalves(t, testenv.GateOff(t), false) })
}

// shardedInformerMovesHalves runs TestShardedInformerOnKubeAPIServer on cp,
// whose server filters by shardSelector or not, as serverFilters says.
func shardedInformerMovesHalves(t *testing.T, cp *controlplane.ControlPlane, serverFilters bool) {
	testenv.InstallFooCRDOn(t, cp)
	ns := testenv.NamespaceOn(t, cp)
	c := testenv.ClientOf(t, cp, nil)
	kinds := []struct {
		gvr        schema.GroupVersionResource
		apiVersion string
		kind       string
		spec       map[string]any
	}{
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, apiVersion: "v1", kind: "ConfigMap"},
		{gvr: schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"},
			apiVersion: "samplecontroller.k8s.io/v1alpha1", kind: "Foo", spec: map[string]any{"deploymentName": "d", "replicas": int64(1)}},
	}
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			res := c.Resource(k.gvr).Namespace(ns)
			var low, high []string
			for i := range 20 {
				obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": k.apiVersion, "kind": k.kind,
					"metadata": map[string]any{"name": fmt.Sprintf("s-%02d", i)}}}
				if k.spec != nil {
					obj.Object["spec"] = k.spec
				}
				out, err := res.Create(t.Context(), obj, metav1.CreateOptions{})
				require.NoError(t, err)
				u := out.(*unstructured.Unstructured)
				h := fnv.New64a()
				h.Write([]byte(u.GetUID()))
				if h.Sum64() < 1<<63 {
					low = append(low, ns+"/"+u.GetName())
				} else {
					high = append(high, ns+"/"+u.GetName())
				}
			}
			sort.Strings(low)
			sort.Strings(high)
			example := &unstructured.Unstructured{}
			example.SetAPIVersion(k.apiVersion)
			example.SetKind(k.kind)
			logs := &shardLog{}
			inf := informer.NewSharedIndexInformer(res, example, 0, nil, informer.WithLogger(slog.New(logs)))
			require.NoError(t, inf.SetShardSelector(lowHalf))
			view := &shardView{keys: map[string]bool{}, changed: make(chan struct{}, 1)}
			_, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
				AddFunc:    func(obj any) { view.record(keyOf(obj), true) },
				DeleteFunc: func(obj any) { view.record(keyOf(obj), false) },
			})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() { defer close(done); inf.Run(ctx) }()
			t.Cleanup(func() { cancel(); <-done })

			// What the server sends for the low half: its share, or everything.
			sent := low
			if !serverFilters {
				sent = append(append([]string{}, low...), high...)
			}
			list, err := res.List(t.Context(), metav1.ListOptions{ShardSelector: lowHalf})
			require.NoError(t, err)
			assert.Len(t, list.(*unstructured.UnstructuredList).Items, len(sent), "what the server lists for the low half")

			view.waitFor(t, low)
			adds, _ := view.take()
			assert.Equal(t, low, adds)
			assert.Equal(t, low, sortedCacheKeys(inf), "the cache holds the low half")

			require.NoError(t, inf.SetShardSelector(highHalf))
			view.waitFor(t, high)
			adds, deletes := view.take()

			t.Logf("%d %ss: low half %d, high half %d", len(low)+len(high), k.kind, len(low), len(high))
			assert.Equal(t, high, adds, "every object that joined was added")
			assert.Equal(t, low, deletes, "every object that left was deleted")
			assert.Equal(t, high, sortedCacheKeys(inf), "the cache holds the high half")
			// Widened to every object, it lists only the low half, at the
			// resourceVersion its cache is at or newer.
			require.NoError(t, inf.SetShardSelector(""))
			all := append(append([]string{}, low...), high...)
			sort.Strings(all)
			view.waitFor(t, all)
			adds, deletes = view.take()
			assert.Equal(t, low, adds, "widened: the objects it gained were added")
			assert.Empty(t, deletes, "widened: nothing left")
			assert.Equal(t, all, sortedCacheKeys(inf), "the cache holds every object")
			assert.Zero(t, logs.count("listing only what the selection gained failed"), "the server served the exact list of what was gained")
			assert.Equal(t, 1, logs.count("listed only the objects it gained"), "the widening listed what it gained alone")

			if serverFilters {
				assert.Zero(t, logs.count("ignored the shard selector"), "the server filtered: nothing to drop on the client")
			} else {
				assert.Equal(t, 1, logs.count("ignored the shard selector"), "the client-side fallback is said once")
			}
		})
	}
}

// sortedCacheKeys returns the keys the informer's cache holds, sorted.
func sortedCacheKeys(inf informer.SharedIndexInformer) []string {
	keys := inf.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}
