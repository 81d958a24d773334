package informer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

func cm(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

// storeCheckingHandler records each call and, at the moment of the call,
// whether the store already reflected it.
type storeCheckingHandler struct {
	store indexer.Store
	calls []string
}

func (h *storeCheckingHandler) cached(key string) string {
	obj, ok, _ := h.store.GetByKey(key)
	if !ok {
		return "absent"
	}
	return obj.(*unstructured.Unstructured).GetResourceVersion()
}

func describe(obj any) (key, rv string) {
	if t, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		return t.Key, "tombstone"
	}
	u := obj.(*unstructured.Unstructured)
	return u.GetNamespace() + "/" + u.GetName(), u.GetResourceVersion()
}

func (h *storeCheckingHandler) OnAdd(obj any, initial bool) {
	key, rv := describe(obj)
	h.calls = append(h.calls, fmt.Sprintf("add %s@%s initial=%v cache=%s", key, rv, initial, h.cached(key)))
}

func (h *storeCheckingHandler) OnUpdate(oldObj, newObj any) {
	key, oldRV := describe(oldObj)
	_, newRV := describe(newObj)
	h.calls = append(h.calls, fmt.Sprintf("update %s@%s->%s cache=%s", key, oldRV, newRV, h.cached(key)))
}

func (h *storeCheckingHandler) OnDelete(obj any) {
	key, rv := describe(obj)
	h.calls = append(h.calls, fmt.Sprintf("delete %s@%s cache=%s", key, rv, h.cached(key)))
}

// TestProcessDeltasUpdatesTheCacheBeforeNotifying applies an add, an update
// and a relist-inferred delete of one object: at every handler call the
// cache already holds the change.
//
// Diagram: steps 4-6. client-go: processDeltas.
func TestProcessDeltasUpdatesTheCacheBeforeNotifying(t *testing.T) {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
	h := &storeCheckingHandler{store: store}
	deltas := deltafifo.Deltas{
		{Type: deltafifo.Added, Object: cm("a", "1")},
		{Type: deltafifo.Updated, Object: cm("a", "2")},
		{Type: deltafifo.Deleted, Object: deltafifo.DeletedFinalStateUnknown{Key: "ns/a", Obj: cm("a", "2")}},
	}

	err := processDeltas(h, store, deltas, false, tracer{discard})

	require.NoError(t, err)
	t.Log("one key's Deltas [Added a@1, Updated a@2, Deleted tombstone]; what the cache held at each handler call:")
	logLines(t, h.calls)
	assert.Equal(t, []string{
		"add ns/a@1 initial=false cache=1",
		"update ns/a@1->2 cache=2",
		"delete ns/a@tombstone cache=absent",
	}, h.calls)
}

// TestProcessDeltasAsksTheCacheWhetherItIsAnAddOrAnUpdate shows that the
// delta type does not decide: a Replaced or Sync delta for a cached key is
// an update, for an unknown key an add (carrying isInInitialList), and a
// Deleted then Added pair is a delete then an add.
//
// Diagram: steps 4-6. client-go: processDeltas.
func TestProcessDeltasAsksTheCacheWhetherItIsAnAddOrAnUpdate(t *testing.T) {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
	require.NoError(t, store.Add(cm("cached", "5")))
	h := &storeCheckingHandler{store: store}

	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Replaced, Object: cm("cached", "5")}}, true, tracer{discard}))
	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Replaced, Object: cm("new", "6")}}, true, tracer{discard}))
	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Sync, Object: cm("new", "6")}}, false, tracer{discard}))
	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{
		{Type: deltafifo.Deleted, Object: cm("cached", "7")},
		{Type: deltafifo.Added, Object: cm("cached", "8")},
	}, false, tracer{discard}))

	t.Log("Replaced of a cached key, Replaced of a new key, Sync, then Deleted and Added in one batch:")
	logLines(t, h.calls)
	assert.Equal(t, []string{
		"update ns/cached@5->5 cache=5",
		"add ns/new@6 initial=true cache=6",
		"update ns/new@6->6 cache=6",
		"delete ns/cached@7 cache=absent",
		"add ns/cached@8 initial=false cache=8",
	}, h.calls)
}

// TestProcessDeltasSaysNothingOfADeleteForAnObjectNotInTheCache feeds a
// second deletion of an object already gone, as the in-order RealFIFO can
// (a relist's tombstone and the watch's DELETED for one object): the
// handler hears of the deletion once.
//
// Diagram: steps 4-6. client-go: processDeltas (which calls OnDelete again).
func TestProcessDeltasSaysNothingOfADeleteForAnObjectNotInTheCache(t *testing.T) {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
	require.NoError(t, store.Add(cm("a", "1")))
	h := &storeCheckingHandler{store: store}

	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Deleted, Object: deltafifo.DeletedFinalStateUnknown{Key: "ns/a", Obj: cm("a", "1")}}}, false, tracer{discard}))
	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Deleted, Object: cm("a", "2")}}, false, tracer{discard}))
	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Deleted, Object: cm("never", "3")}}, false, tracer{discard}))

	t.Log("a tombstone for a, then a second Deleted for a, then a Deleted for a key never cached:")
	logLines(t, h.calls)
	assert.Equal(t, []string{"delete ns/a@tombstone cache=absent"}, h.calls)
}

// TestProcessDeltasStopsAtACacheError makes the cache reject an object (its
// index function fails): the handler is not told, and the error names the
// delta.
//
// Diagram: steps 4-6. client-go: processDeltas.
func TestProcessDeltasStopsAtACacheError(t *testing.T) {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexer.Indexers{
		"broken": func(any) ([]string, error) { return nil, fmt.Errorf("cannot index") },
	})
	h := &storeCheckingHandler{store: store}

	err := processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.Added, Object: cm("a", "1")}}, false, tracer{discard})

	require.Error(t, err)
	t.Logf("the cache refuses the object: %v; handler calls: %d", err, len(h.calls))
	assert.Contains(t, err.Error(), "informer: Added")
	assert.Empty(t, h.calls)
}

// logLines logs each line, for -v.
func logLines(t *testing.T, lines []string) {
	t.Helper()
	for _, line := range lines {
		t.Log("   " + line)
	}
}
