package indexer_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
)

// failOn returns an IndexFunc on the "app" label that fails for objects
// labelled fail=true.
func failOn(cause error) indexer.IndexFunc {
	appIndex := indexer.LabelIndexFunc("app")
	return func(obj any) ([]string, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		if m.GetLabels()["fail"] == "true" {
			return nil, cause
		}
		return appIndex(obj)
	}
}

// TestIndexFuncErrorRejectsWriteAndLeavesStateUnchanged checks the rule that
// replaces client-go's panic: when an IndexFunc fails, Add, Update, Replace and
// AddIndexers return its error and the store and every index stay exactly as
// they were; a later good write still works.
// Diagram: step 5. client-go: storeIndex.updateSingleIndex (panics instead).
func TestIndexFuncErrorRejectsWriteAndLeavesStateUnchanged(t *testing.T) {
	cause := errors.New("cannot index this")
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
		byApp:                  failOn(cause),
	})
	original := newObj("shop", "web", "app=web")
	require.NoError(t, idx.Add(original))
	snapshot := func() []any {
		keys := idx.ListKeys()
		values := idx.ListIndexFuncValues(byApp)
		namespaces := idx.ListIndexFuncValues(indexer.NamespaceIndex)
		web, _ := idx.IndexKeys(byApp, "web")
		obj, _, _ := idx.GetByKey("shop/web")
		return []any{keys, values, namespaces, web, obj}
	}
	before := snapshot()

	errAdd := idx.Add(newObj("blog", "new", "app=new", "fail=true"))
	requireConsistent(t, idx)
	errUpdate := idx.Update(newObj("shop", "web", "app=moved", "fail=true"))
	requireConsistent(t, idx)
	errReplace := idx.Replace([]any{newObj("x", "ok", "app=ok"), newObj("x", "bad", "fail=true")}, "9")
	requireConsistent(t, idx)
	alwaysFails := func(any) ([]string, error) { return nil, cause }
	errAddIndexers := idx.AddIndexers(indexer.Indexers{"also": indexer.LabelIndexFunc("tier"), "broken": alwaysFails})
	requireConsistent(t, idx)

	t.Logf("Add with a failing IndexFunc: %v", errAdd)
	t.Logf("Update: %v", errUpdate)
	t.Logf("Replace: %v", errReplace)
	t.Logf("AddIndexers: %v", errAddIndexers)
	t.Logf("   the store and every index are as before: %v", reflect.DeepEqual(before, snapshot()))
	for _, err := range []error{errAdd, errUpdate, errReplace} {
		assert.ErrorIs(t, err, cause)
		assert.ErrorContains(t, err, `indexer: index "byApp"`)
	}
	assert.ErrorIs(t, errAddIndexers, cause)
	assert.ErrorContains(t, errAddIndexers, `indexer: index "broken"`)
	assert.Equal(t, before, snapshot())
	assert.Same(t, original, before[4])
	assert.Len(t, idx.GetIndexers(), 2, `"also" was not added either`)
	assert.Nil(t, idx.ListIndexFuncValues("also"))

	require.NoError(t, idx.Update(newObj("shop", "web", "app=moved")))
	requireConsistent(t, idx)
	moved, _ := idx.IndexKeys(byApp, "moved")
	assert.Equal(t, []string{"shop/web"}, moved)
	t.Logf("   a later good Update works: IndexKeys(byApp, moved) = %v", moved)
}

// TestIndexerDeleteNeverRunsIndexFunc checks that Delete removes an object
// from the values it was filed under without asking the IndexFunc again, so
// it cannot fail even if the IndexFunc now would.
// Diagram: step 5. client-go: threadSafeMap.Delete (recomputes the values).
func TestIndexerDeleteNeverRunsIndexFunc(t *testing.T) {
	calls := 0
	counting := func(obj any) ([]string, error) {
		calls++
		return indexer.MetaNamespaceIndexFunc(obj)
	}
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{indexer.NamespaceIndex: counting})
	require.NoError(t, idx.Add(newObj("shop", "web")))
	require.Equal(t, 1, calls)

	require.NoError(t, idx.Delete(newObj("shop", "web")))

	assert.Equal(t, 1, calls)
	t.Logf("Add ran the IndexFunc %d time; Delete did not run it again", calls)
	assert.Empty(t, idx.ListIndexFuncValues(indexer.NamespaceIndex))
	requireConsistent(t, idx)
}

// TestIndexerUpdateAfterInPlaceMutationStillMovesIndexEntry shows the safety
// net under the "never mutate cached objects" rule. A caller breaks the rule:
// it changes a cached object's label in place, then writes the same pointer
// back. client-go recomputes the old values from the (already changed) old
// object, sees no change and leaves a stale entry under the old value. Here the
// values are remembered from when the object was stored, so the entry moves.
// Diagram: step 5. client-go: storeIndex.updateIndices.
func TestIndexerUpdateAfterInPlaceMutationStillMovesIndexEntry(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))
	cached, _, _ := idx.GetByKey("shop/web")

	cached.(*metav1.PartialObjectMetadata).Labels["app"] = "db" // the bug: mutating the cache
	require.NoError(t, idx.Update(cached))
	requireConsistent(t, idx)

	web, _ := idx.IndexKeys(byApp, "web")
	db, _ := idx.IndexKeys(byApp, "db")
	t.Logf("a cached object's label changed in place from web to db, then Update(same pointer): IndexKeys(web) = %v, IndexKeys(db) = %v", web, db)
	assert.Empty(t, web)
	assert.Equal(t, []string{"shop/web"}, db)
}

// TestNilIndexFuncMakesWritesFail checks that an Indexers map with a nil
// function, which NewIndexer cannot refuse, produces a clear error on write
// instead of a nil-function panic.
// Diagram: step 5. client-go: NewIndexer (would panic on first use).
func TestNilIndexFuncMakesWritesFail(t *testing.T) {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{"broken": nil})

	err := idx.Add(newObj("shop", "web"))
	_, errIndex := idx.Index("broken", newObj("shop", "web"))

	assert.ErrorContains(t, err, `indexer: index "broken" has a nil IndexFunc`)
	assert.ErrorContains(t, errIndex, "nil IndexFunc")
	assert.Empty(t, idx.ListKeys())
	assert.Empty(t, idx.List())
}

// TestIndexFuncErrorFromIndexIsReturned checks that Index reports an IndexFunc
// failure on the probe object.
// Diagram: step 9. client-go: threadSafeMap.Index.
func TestIndexFuncErrorFromIndexIsReturned(t *testing.T) {
	idx := newTestIndexer()

	_, err := idx.Index(indexer.NamespaceIndex, "not an object")

	assert.ErrorContains(t, err, `indexer: index "namespace": indexer: object has no meta`)
}
