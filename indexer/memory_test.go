package indexer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/indexer"
)

// fixedIndexFunc returns an IndexFunc that files every object under the same
// values, from a slice made once, so that calling it allocates nothing.
func fixedIndexFunc(values ...string) indexer.IndexFunc {
	return func(any) ([]string, error) { return values, nil }
}

// TestStoreWriteAllocatesNothingOfItsOwn checks that, in a warm store with two
// single-valued indexes, an Update and an Add into the slot a Delete freed
// allocate nothing: an object's index values are kept inline in its slot,
// not in a slice or map per object. The key and the IndexFuncs' results are
// the caller's allocations; here they are made once.
// Diagram: step 5. client-go: threadSafeMap.Update, which recomputes the old values instead.
func TestStoreWriteAllocatesNothingOfItsOwn(t *testing.T) {
	store := indexer.NewThreadSafeStore(indexer.Indexers{
		"ns":  fixedIndexFunc("shop"),
		"app": fixedIndexFunc("web"),
	})
	for i := range 100 {
		require.NoError(t, store.Add(fmt.Sprintf("shop/web-%d", i), i))
	}
	obj := any(7)

	update := testing.AllocsPerRun(100, func() {
		_ = store.Update("shop/web-7", obj)
	})
	reuse := testing.AllocsPerRun(100, func() {
		store.Delete("shop/web-7")
		_ = store.Add("shop/web-7", obj)
	})

	t.Logf("allocations per Update: %v; per Delete then Add of the same key: %v", update, reuse)
	assert.Zero(t, update)
	assert.Zero(t, reuse)
	requireConsistent(t, store)
	keys, err := store.IndexKeys("app", "web")
	require.NoError(t, err)
	assert.Len(t, keys, 100)
}

// TestStoreFilesManyIndexesAndValues checks the shape that does not fit an
// object's slot inline (three indexes, several values for one), through
// Add, an Update that changes one index, AddIndexers and Delete.
// Diagram: step 5. client-go: threadSafeMap.updateIndices.
func TestStoreFilesManyIndexesAndValues(t *testing.T) {
	store := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
		byApp:                  indexer.LabelIndexFunc("app"),
		"byTier":               indexer.LabelIndexFunc("tier"),
	})
	web := newObj("shop", "web", "app=web", "tier=front")
	db := newObj("shop", "db", "app=db")

	require.NoError(t, store.Add(web))
	require.NoError(t, store.Add(db))
	requireConsistent(t, store)
	require.NoError(t, store.Update(newObj("shop", "web", "app=web", "tier=back")))
	requireConsistent(t, store)
	require.NoError(t, store.AddIndexers(indexer.Indexers{"both": func(obj any) ([]string, error) {
		l := labelsOf(obj)
		return []string{l["app"], l["tier"], l["app"]}, nil
	}}))
	requireConsistent(t, store)

	front, _ := store.IndexKeys("byTier", "front")
	back, _ := store.IndexKeys("byTier", "back")
	both, _ := store.IndexKeys("both", "web")
	t.Logf("tier front %v, back %v; both=web %v", front, back, both)
	assert.Empty(t, front)
	assert.Equal(t, []string{"shop/web"}, back)
	assert.Equal(t, []string{"shop/web"}, both)
	assert.Equal(t, []string{"", "back", "db", "web"}, store.ListIndexFuncValues("both"))

	require.NoError(t, store.Delete(web))
	requireConsistent(t, store)
	assert.Equal(t, []string{"", "db"}, store.ListIndexFuncValues("both"))
}
