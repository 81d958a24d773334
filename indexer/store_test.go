package indexer_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
)

// TestStoreKeepsObjectUnderItsKey walks an object through a Store: Add files
// it under its key, Get and GetByKey find it, Delete removes it.
// Diagram: steps 4, 5 and 9. client-go: cache.Add, cache.GetByKey, cache.Delete.
func TestStoreKeepsObjectUnderItsKey(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	web := newObj("default", "web")

	require.NoError(t, store.Add(web))
	requireConsistent(t, store)

	byKey, exists, err := store.GetByKey("default/web")
	require.NoError(t, err)
	assert.True(t, exists)
	assert.Same(t, web, byKey)
	byObj, exists, err := store.Get(newObj("default", "web"))
	require.NoError(t, err)
	assert.True(t, exists)
	assert.Same(t, web, byObj)
	t.Logf("Add(default/web): GetByKey(%q) finds it, Get(a copy of it) finds it too; ListKeys() = %v", "default/web", store.ListKeys())
	assert.Equal(t, []string{"default/web"}, store.ListKeys())
	assert.Equal(t, []any{web}, store.List())

	require.NoError(t, store.Delete(newObj("default", "web")))
	requireConsistent(t, store)

	_, exists, err = store.GetByKey("default/web")
	require.NoError(t, err)
	assert.False(t, exists)
	t.Logf("   Delete: GetByKey finds nothing; List() holds %d objects", len(store.List()))
	assert.Empty(t, store.List())
}

// TestStoreAddAndUpdateAreBothUpserts checks that Add of an existing key
// replaces the object and Update of a new key inserts it.
// Diagram: step 5. client-go: threadSafeMap.Add/Update.
func TestStoreAddAndUpdateAreBothUpserts(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	v1 := newObj("default", "web", "v=1")
	v2 := newObj("default", "web", "v=2")

	require.NoError(t, store.Update(v1))
	requireConsistent(t, store)
	require.NoError(t, store.Add(v2))
	requireConsistent(t, store)

	got, exists, _ := store.GetByKey("default/web")
	assert.True(t, exists)
	assert.Same(t, v2, got)
	t.Logf("Update of a new key inserts, Add of a stored key replaces: %d object under default/web, labels %v", len(store.List()), labelsOf(got))
	assert.Len(t, store.List(), 1)
}

// TestStoreDeleteOfAbsentKeyIsNoOp checks that deleting something never
// stored is silently accepted.
// Diagram: step 5. client-go: threadSafeMap.Delete.
func TestStoreDeleteOfAbsentKeyIsNoOp(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("default", "web")))

	err := store.Delete(newObj("default", "gone"))

	assert.NoError(t, err)
	assert.Equal(t, []string{"default/web"}, store.ListKeys())
	requireConsistent(t, store)
}

// TestStoreRejectsObjectWithoutKey checks that every write path returns a
// KeyError for an object the KeyFunc cannot key, and stores nothing.
// Diagram: step 4. client-go: KeyError.
func TestStoreRejectsObjectWithoutKey(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("default", "web")))
	var keyErr indexer.KeyError

	assert.ErrorAs(t, store.Add("not an object"), &keyErr)
	assert.ErrorAs(t, store.Update("not an object"), &keyErr)
	assert.ErrorAs(t, store.Delete("not an object"), &keyErr)
	_, _, err := store.Get("not an object")
	assert.ErrorAs(t, err, &keyErr)
	assert.ErrorAs(t, store.Replace([]any{newObj("default", "a"), "not an object"}, "7"), &keyErr)

	assert.Equal(t, []string{"default/web"}, store.ListKeys(), "a failed Replace changes nothing")
	requireConsistent(t, store)
}

// TestStoreReplaceSwapsWholeContents checks that Replace drops objects not in
// the new list, keeps the listed ones, and that a duplicate key keeps the last.
// Diagram: step 5. client-go: threadSafeMap.Replace.
func TestStoreReplaceSwapsWholeContents(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("default", "old")))
	require.NoError(t, store.Add(newObj("default", "kept", "v=1")))
	kept := newObj("default", "kept", "v=2")
	first := newObj("default", "dup", "n=1")
	last := newObj("default", "dup", "n=2")

	require.NoError(t, store.Replace([]any{kept, first, last}, "42"))
	requireConsistent(t, store)

	assert.ElementsMatch(t, []string{"default/kept", "default/dup"}, store.ListKeys())
	t.Logf("held old and kept; Replace([kept v=2, dup n=1, dup n=2]): keys %v", slices.Sorted(slices.Values(store.ListKeys())))
	got, _, _ := store.GetByKey("default/kept")
	assert.Same(t, kept, got)
	got, _, _ = store.GetByKey("default/dup")
	assert.Same(t, last, got)
	t.Logf("   default/dup has labels %v: of two objects with one key the last wins", labelsOf(got))

	require.NoError(t, store.Replace(nil, "43"))
	requireConsistent(t, store)
	assert.Empty(t, store.ListKeys())
}

// TestStoreResyncIsNoOp checks that Resync, there only to match a queue's
// method set, changes nothing.
// Diagram: step 5. client-go: cache.Resync.
func TestStoreResyncIsNoOp(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("default", "web")))

	require.NoError(t, store.Resync())

	assert.Equal(t, []string{"default/web"}, store.ListKeys())
	requireConsistent(t, store)
}

// TestStoreHandsOutSharedPointersNotCopies pins the reason cached objects must
// never be mutated: the store returns the very pointer it was given, so a
// change made through one reader is seen by every other reader, and the
// cache no longer matches the server.
// Diagram: step 9. client-go: cache (no copies are made; see mutation_detector.go).
func TestStoreHandsOutSharedPointersNotCopies(t *testing.T) {
	store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("default", "web", "tier=frontend")))

	readerA, _, _ := store.GetByKey("default/web")
	readerA.(*metav1.PartialObjectMetadata).Labels["tier"] = "oops" // the bug
	readerB, _, _ := store.GetByKey("default/web")

	assert.Same(t, readerA, readerB)
	t.Logf("reader A sets tier=oops on the object GetByKey returned; reader B's GetByKey returns the same pointer: %v, tier=%s", readerA == readerB, readerB.(*metav1.PartialObjectMetadata).Labels["tier"])
	assert.Equal(t, "oops", readerB.(*metav1.PartialObjectMetadata).Labels["tier"])

	safe := readerB.(*metav1.PartialObjectMetadata).DeepCopy() // the fix: copy, then change the copy
	safe.Labels["tier"] = "backend"
	readerC, _, _ := store.GetByKey("default/web")
	assert.Equal(t, "oops", readerC.(*metav1.PartialObjectMetadata).Labels["tier"])
	t.Logf("   a change to a DeepCopy (tier=%s) stays in the copy: the store still has tier=%s", safe.Labels["tier"], readerC.(*metav1.PartialObjectMetadata).Labels["tier"])
}

// TestNilKeyFuncMeansMetaNamespaceKeyFunc checks the documented default.
// Diagram: step 5. client-go: NewStore (which requires a KeyFunc).
func TestNilKeyFuncMeansMetaNamespaceKeyFunc(t *testing.T) {
	store := indexer.NewStore(nil)

	require.NoError(t, store.Add(newObj("default", "web")))

	assert.Equal(t, []string{"default/web"}, store.ListKeys())
	requireConsistent(t, store)
}

// TestThreadSafeStoreWorksByKey uses the ThreadSafeStore directly, with keys
// chosen by the caller, including an index.
// Diagram: step 5. client-go: ThreadSafeStore.
func TestThreadSafeStoreWorksByKey(t *testing.T) {
	store := indexer.NewThreadSafeStore(indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})

	require.NoError(t, store.Add("k1", newObj("a", "x")))
	require.NoError(t, store.Update("k2", newObj("b", "y")))
	requireConsistent(t, store)

	got, ok := store.Get("k1")
	assert.True(t, ok)
	assert.Equal(t, "x", got.(*metav1.PartialObjectMetadata).Name)
	keys, err := store.IndexKeys(indexer.NamespaceIndex, "b")
	require.NoError(t, err)
	assert.Equal(t, []string{"k2"}, keys)

	require.NoError(t, store.Replace(map[string]any{"k3": newObj("a", "z")}, "1"))
	requireConsistent(t, store)
	store.Delete("k3")
	requireConsistent(t, store)

	assert.Empty(t, store.ListKeys())
	assert.Empty(t, store.List())
	assert.Empty(t, store.ListIndexFuncValues(indexer.NamespaceIndex))
	assert.NoError(t, store.Resync())
}

// TestStoreRejectsNilObject checks that a nil object, which no reader could
// use, is refused by every write path even when the KeyFunc accepts it.
// Diagram: step 5. client-go: threadSafeMap.checkNoNilInvariant (panics instead).
func TestStoreRejectsNilObject(t *testing.T) {
	store := indexer.NewStore(func(any) (string, error) { return "k", nil })
	threadSafe := indexer.NewThreadSafeStore(nil)

	errAdd := store.Add(nil)
	errUpdate := store.Update(nil)
	errReplace := store.Replace([]any{nil}, "1")
	errDirect := threadSafe.Add("k", nil)
	errDirectReplace := threadSafe.Replace(map[string]any{"k": nil}, "1")

	for _, err := range []error{errAdd, errUpdate, errReplace, errDirect, errDirectReplace} {
		assert.ErrorContains(t, err, `indexer: cannot store a nil object (key "k")`)
	}
	assert.Empty(t, store.ListKeys())
	assert.Empty(t, threadSafe.ListKeys())
	requireConsistent(t, store)
	requireConsistent(t, threadSafe)
}
