package informer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// wholeCacheHandler records each call with the whole cache as it is at the
// moment of the call: "delete ns/b@tombstone(3) cache=[a@2 c@6]".
type wholeCacheHandler struct {
	store indexer.Store
	calls []string
}

func (h *wholeCacheHandler) cache() string {
	var objs []string
	for _, obj := range h.store.List() {
		u := obj.(*unstructured.Unstructured)
		objs = append(objs, u.GetName()+"@"+u.GetResourceVersion())
	}
	slices.Sort(objs)
	return "cache=[" + strings.Join(objs, " ") + "]"
}

func (h *wholeCacheHandler) OnAdd(obj any, initial bool) {
	key, rv := describe(obj)
	h.calls = append(h.calls, fmt.Sprintf("add %s@%s initial=%v %s", key, rv, initial, h.cache()))
}

func (h *wholeCacheHandler) OnUpdate(oldObj, newObj any) {
	key, oldRV := describe(oldObj)
	_, newRV := describe(newObj)
	h.calls = append(h.calls, fmt.Sprintf("update %s@%s->%s %s", key, oldRV, newRV, h.cache()))
}

func (h *wholeCacheHandler) OnDelete(obj any) {
	key, rv := describe(obj)
	if t, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok && t.Obj != nil {
		_, last := describe(t.Obj)
		rv += "(" + last + ")"
	}
	h.calls = append(h.calls, fmt.Sprintf("delete %s@%s %s", key, rv, h.cache()))
}

func newCache(objs ...*unstructured.Unstructured) indexer.Indexer {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
	for _, o := range objs {
		if err := store.Add(o); err != nil {
			panic(err)
		}
	}
	return store
}

func replacedAll(rv string, objs ...*unstructured.Unstructured) deltafifo.Deltas {
	info := deltafifo.ReplacedAllInfo{ResourceVersion: rv}
	for _, o := range objs {
		info.Objects = append(info.Objects, o)
	}
	return deltafifo.Deltas{{Type: deltafifo.ReplacedAll, Object: info}}
}

// TestReplacedAllReplacesTheWholeCacheBeforeAnyHandlerIsTold: at the first
// notification of a relist, the cache already is exactly the new list; no
// handler can read a cache that mixes the list with what came before.
//
// Diagram: steps 4-6. client-go: processReplacedAllInfo (KEP-5647)
func TestReplacedAllReplacesTheWholeCacheBeforeAnyHandlerIsTold(t *testing.T) {
	store := newCache(cm("a", "2"), cm("b", "3"), cm("c", "4"))
	h := &wholeCacheHandler{store: store}

	err := processDeltas(h, store, replacedAll("7", cm("a", "2"), cm("c", "6"), cm("d", "7")), false, tracer{discard})

	require.NoError(t, err)
	assert.Equal(t, []string{
		"delete ns/b@tombstone(3) cache=[a@2 c@6 d@7]",
		"update ns/a@2->2 cache=[a@2 c@6 d@7]",
		"update ns/c@4->6 cache=[a@2 c@6 d@7]",
		"add ns/d@7 initial=false cache=[a@2 c@6 d@7]",
	}, h.calls)
}

// TestReplacedAllTellsDeletionsFirstThenTheListInListOrder: deletions (each
// a tombstone holding the cached object, in key order), then additions and
// updates in the order the server listed the objects.
//
// Diagram: step 6. client-go: processReplacedAllInfo
func TestReplacedAllTellsDeletionsFirstThenTheListInListOrder(t *testing.T) {
	store := newCache(cm("z", "1"), cm("y", "1"), cm("m", "1"), cm("x", "1"))
	h := &storeCheckingHandler{store: store}

	err := processDeltas(h, store, replacedAll("9", cm("m", "9"), cm("b", "9"), cm("a", "9")), true, tracer{discard})

	require.NoError(t, err)
	assert.Equal(t, []string{
		"delete ns/x@tombstone cache=absent",
		"delete ns/y@tombstone cache=absent",
		"delete ns/z@tombstone cache=absent",
		"update ns/m@1->9 cache=9",
		"add ns/b@9 initial=true cache=9",
		"add ns/a@9 initial=true cache=9",
	}, h.calls)
}

// TestReplacedAllOfAnEmptyListDeletesEverything: an empty list is a real
// answer (every object is gone), not "nothing to do".
//
// Diagram: steps 4-6. client-go: processReplacedAllInfo
func TestReplacedAllOfAnEmptyListDeletesEverything(t *testing.T) {
	store := newCache(cm("a", "1"), cm("b", "2"))
	h := &wholeCacheHandler{store: store}

	require.NoError(t, processDeltas(h, store, replacedAll("5"), true, tracer{discard}))

	assert.Equal(t, []string{
		"delete ns/a@tombstone(1) cache=[]",
		"delete ns/b@tombstone(2) cache=[]",
	}, h.calls)
}

// TestReplacedAllListingAKeyTwiceIsAnAddThenAnUpdate: the handler's view
// stays consistent with the cache (which keeps the second object), where
// client-go would report two additions.
//
// Diagram: step 6. client-go: processReplacedAllInfo (reports OnAdd twice)
func TestReplacedAllListingAKeyTwiceIsAnAddThenAnUpdate(t *testing.T) {
	store := newCache()
	h := &storeCheckingHandler{store: store}

	require.NoError(t, processDeltas(h, store, replacedAll("3", cm("a", "1"), cm("a", "3")), true, tracer{discard}))

	assert.Equal(t, []string{
		"add ns/a@1 initial=true cache=3",
		"update ns/a@1->3 cache=3",
	}, h.calls)
}

// TestReplacedAllThatTheCacheRejectsChangesNothing: if the cache cannot
// take the list (an index function fails on one object), the cache keeps
// its old contents and no handler is told anything.
//
// Diagram: steps 4-6. client-go: processReplacedAllInfo
func TestReplacedAllThatTheCacheRejectsChangesNothing(t *testing.T) {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexer.Indexers{
		"picky": func(obj any) ([]string, error) {
			if obj.(*unstructured.Unstructured).GetName() == "bad" {
				return nil, fmt.Errorf("cannot index bad")
			}
			return nil, nil
		},
	})
	require.NoError(t, store.Add(cm("a", "1")))
	h := &wholeCacheHandler{store: store}

	err := processDeltas(h, store, replacedAll("4", cm("b", "4"), cm("bad", "4")), false, tracer{discard})

	assert.ErrorContains(t, err, "informer: ReplacedAll: ")
	assert.Empty(t, h.calls)
	assert.Equal(t, "cache=[a@1]", h.cache())
}

// TestSyncAllReDeliversEveryCachedObjectAsANoOpUpdate: a resync from an
// atomic queue is answered from the cache, in key order; the equal
// resourceVersions make it a sync notification.
//
// Diagram: step 6. client-go: processDeltas (SyncAll)
func TestSyncAllReDeliversEveryCachedObjectAsANoOpUpdate(t *testing.T) {
	store := newCache(cm("b", "2"), cm("a", "1"))
	h := &storeCheckingHandler{store: store}

	require.NoError(t, processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.SyncAll, Object: deltafifo.SyncAllInfo{}}}, false, tracer{discard}))

	assert.Equal(t, []string{
		"update ns/a@1->1 cache=1",
		"update ns/b@2->2 cache=2",
	}, h.calls)
}

// TestWholeStoreDeltasWithTheWrongObjectAreAnError: never a panic.
//
// Diagram: step 4. client-go: processDeltas
func TestWholeStoreDeltasWithTheWrongObjectAreAnError(t *testing.T) {
	store := newCache()
	h := &storeCheckingHandler{store: store}

	err := processDeltas(h, store, deltafifo.Deltas{{Type: deltafifo.ReplacedAll, Object: cm("a", "1")}}, false, tracer{discard})

	assert.ErrorContains(t, err, "informer: ReplacedAll delta carries *unstructured.Unstructured")
	assert.Empty(t, h.calls)
}
