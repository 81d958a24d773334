package indexer_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/indexer"
)

// version returns a copy of an object made by newObj, as the API server
// returns it: with a uid and a resourceVersion.
func version(obj *metav1.PartialObjectMetadata, uid types.UID, rv string) *metav1.PartialObjectMetadata {
	out := obj.DeepCopy()
	out.UID, out.ResourceVersion = uid, rv
	return out
}

// rvOf returns the resourceVersion of an object made by version.
func rvOf(obj any) string { return obj.(*metav1.PartialObjectMetadata).ResourceVersion }

// TestMutationCacheReadsOwnWriteUntilInformerCatchesUp walks through the
// stale cache and the overlay that bridges it: a controller updates an
// object, the informer's cache has not yet seen the watch event, and the
// MutationCache returns the controller's own newer copy until the informer
// catches up, then the informer's again.
// Diagram: steps 1-5 (a write travels back to the cache) and 9 (the read). client-go: MutationCache.Mutation, GetByKey, OnAddOrUpdate.
func TestMutationCacheReadsOwnWriteUntilInformerCatchesUp(t *testing.T) {
	informerCache := indexer.NewIndexer(nil, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
	mc := indexer.NewIntegerResourceVersionMutationCache(informerCache, indexer.MutationCacheOptions{Indexer: informerCache})
	cm := newObj("shop", "settings", "replicas=1")
	require.NoError(t, informerCache.Add(version(cm, "uid-1", "2")))

	// 1. The controller writes replicas=2; the server answers at resourceVersion 3.
	answer := version(newObj("shop", "settings", "replicas=2"), "uid-1", "3")
	stale, _, _ := informerCache.GetByKey("shop/settings")
	t.Logf("1. wrote replicas=2 (server: resourceVersion 3); the informer's cache still has replicas=%s at %s",
		labelsOf(stale)["replicas"], rvOf(stale))
	require.Equal(t, "2", rvOf(stale))

	// 2. It hands the answer to the overlay; reads return it.
	require.NoError(t, mc.Mutation(answer))
	got, exists, err := mc.GetByKey("shop/settings")
	require.NoError(t, err)
	require.True(t, exists)
	t.Logf("2. through the MutationCache: replicas=%s at %s", labelsOf(got)["replicas"], rvOf(got))
	assert.Equal(t, "3", rvOf(got))
	byNamespace, err := mc.ByIndex(indexer.NamespaceIndex, "shop")
	require.NoError(t, err)
	assert.Equal(t, []any{answer}, byNamespace)
	assert.Equal(t, []string{"shop/settings"}, mc.Keys())
	requireConsistent(t, mc)

	// 3. The watch event arrives: the informer stores the object and tells the overlay.
	caughtUp := version(newObj("shop", "settings", "replicas=2"), "uid-1", "3")
	require.NoError(t, informerCache.Update(caughtUp))
	require.NoError(t, mc.OnAddOrUpdate(caughtUp))
	t.Logf("3. the informer caught up; the overlay remembers %v", mc.Keys())
	assert.Empty(t, mc.Keys())

	// 4. Reads come from the informer's cache again.
	got, _, err = mc.GetByKey("shop/settings")
	require.NoError(t, err)
	assert.Same(t, caughtUp, got)
	requireConsistent(t, mc)
}

// TestMutationCacheDropsAWriteTheStoreHasCaughtUpWithOnRead: without
// OnAddOrUpdate, a read that finds the backing store as new as the written
// copy (or newer: someone else wrote since) returns the store's and drops
// the copy.
// Diagram: step 9. client-go: mutationCache.newerObject.
func TestMutationCacheDropsAWriteTheStoreHasCaughtUpWithOnRead(t *testing.T) {
	store := indexer.NewStore(nil)
	mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{})
	require.NoError(t, store.Add(version(newObj("shop", "web"), "uid-1", "5")))
	require.NoError(t, mc.Mutation(version(newObj("shop", "web"), "uid-1", "7")))

	got, _, _ := mc.GetByKey("shop/web")
	require.Equal(t, "7", rvOf(got))
	require.NoError(t, store.Update(version(newObj("shop", "web"), "uid-1", "9")))
	got, _, _ = mc.GetByKey("shop/web")

	assert.Equal(t, "9", rvOf(got))
	assert.Empty(t, mc.Keys())
	requireConsistent(t, mc)
}

// TestMutationCacheForgetsAWriteAfterItsTTL: a written copy the informer
// never catches up with is dropped TTL after it was written, not a moment
// before.
// Diagram: none. client-go: MutationCacheOptions.TTL (an LRUExpireCache entry's ttl).
func TestMutationCacheForgetsAWriteAfterItsTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := indexer.NewStore(nil)
		mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{TTL: time.Minute})
		require.NoError(t, store.Add(version(newObj("shop", "web"), "uid-1", "5")))
		require.NoError(t, mc.Mutation(version(newObj("shop", "web"), "uid-1", "7")))

		time.Sleep(time.Minute)
		got, _, _ := mc.GetByKey("shop/web")
		assert.Equal(t, "7", rvOf(got), "exactly TTL old: kept")
		time.Sleep(time.Nanosecond)
		got, _, _ = mc.GetByKey("shop/web")
		assert.Equal(t, "5", rvOf(got), "older than TTL: forgotten")
		assert.Empty(t, mc.Keys())
	})
}

// TestMutationCacheEvictsTheLeastRecentlyUsedWrite: with MaxCacheSize 2, a
// third write pushes out the copy read least recently, and Keys lists the
// rest least recently used first.
// Diagram: none. client-go: MutationCacheOptions.MaxCacheSize (an LRU).
func TestMutationCacheEvictsTheLeastRecentlyUsedWrite(t *testing.T) {
	store := indexer.NewStore(nil)
	mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{MaxCacheSize: 2})
	for _, name := range []string{"a", "b", "c"} {
		require.NoError(t, store.Add(version(newObj("shop", name), "uid-"+types.UID(name), "1")))
	}

	require.NoError(t, mc.Mutation(version(newObj("shop", "a"), "uid-a", "2")))
	require.NoError(t, mc.Mutation(version(newObj("shop", "b"), "uid-b", "3")))
	_, _, _ = mc.GetByKey("shop/a") // a is now the most recently used
	require.NoError(t, mc.Mutation(version(newObj("shop", "c"), "uid-c", "4")))

	assert.Equal(t, []string{"shop/a", "shop/c"}, mc.Keys())
	got, _, _ := mc.GetByKey("shop/b")
	assert.Equal(t, "1", rvOf(got), "b's write was evicted")
	requireConsistent(t, mc)
}

// TestMutationCacheShowsCreatesOnlyWithIncludeAdds: an object the backing
// store does not hold is absent, whatever the overlay says, unless
// IncludeAdds is set; then it is returned on every read until the store has
// it, not only on the first.
// Diagram: step 9. client-go: MutationCacheOptions.IncludeAdds (whose GetByKey drops the copy after returning it once).
func TestMutationCacheShowsCreatesOnlyWithIncludeAdds(t *testing.T) {
	for _, includeAdds := range []bool{false, true} {
		t.Run(fmt.Sprintf("IncludeAdds=%v", includeAdds), func(t *testing.T) {
			store := indexer.NewStore(nil)
			mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{IncludeAdds: includeAdds})
			created := version(newObj("shop", "web"), "uid-1", "4")

			require.NoError(t, mc.Mutation(created))

			for read := 1; read <= 2; read++ {
				got, exists, err := mc.GetByKey("shop/web")
				require.NoError(t, err)
				assert.Equal(t, includeAdds, exists, "read %d", read)
				if includeAdds {
					assert.Same(t, created, got, "read %d", read)
				}
			}
			assert.Equal(t, []string{"shop/web"}, mc.Keys(), "the copy waits for the store either way")
		})
	}
}

// TestMutationCacheIgnoresAWriteOfAnObjectTheInformerSawDeleted: the
// informer reports a delete before the controller's own update of that
// object reaches the overlay; the deletion is remembered, and the late
// write does not bring the object back. A newer object of another uid
// (created again under the same name) is shown.
// Diagram: step 9. client-go: MutationCache.OnDelete's tombstone.
func TestMutationCacheIgnoresAWriteOfAnObjectTheInformerSawDeleted(t *testing.T) {
	store := indexer.NewStore(nil)
	mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{IncludeAdds: true})
	updated := version(newObj("shop", "web"), "uid-1", "6")

	require.NoError(t, mc.OnDelete(version(newObj("shop", "web"), "uid-1", "7")))
	require.NoError(t, mc.Mutation(updated))
	_, exists, err := mc.GetByKey("shop/web")
	require.NoError(t, err)
	assert.False(t, exists, "the late write of a deleted object is not shown")
	assert.Equal(t, []string{"shop/web"}, mc.Keys(), "the deletion is remembered")

	recreated := version(newObj("shop", "web"), "uid-2", "9")
	require.NoError(t, mc.Mutation(recreated))
	got, exists, err := mc.GetByKey("shop/web")
	require.NoError(t, err)
	require.True(t, exists)
	assert.Same(t, recreated, got)
	requireConsistent(t, mc)
}

// TestMutationCacheOnDeleteKeepsANewerObjectOfAnotherUID: the informer
// reports the deletion of an older object with the same name; the
// controller's newer object of another uid stays shown.
// Diagram: step 9. client-go: MutationCache.OnDelete.
func TestMutationCacheOnDeleteKeepsANewerObjectOfAnotherUID(t *testing.T) {
	store := indexer.NewStore(nil)
	mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{IncludeAdds: true})
	created := version(newObj("shop", "web"), "uid-2", "9")
	require.NoError(t, mc.Mutation(created))

	require.NoError(t, mc.OnDelete(version(newObj("shop", "web"), "uid-1", "8")))

	got, exists, err := mc.GetByKey("shop/web")
	require.NoError(t, err)
	require.True(t, exists)
	assert.Same(t, created, got)
}

// TestMutationCacheByIndexFindsAWrittenCopyUnderItsNewValue: a write that
// changed an indexed label moves the object, for ByIndex, from the old
// value to the new one before the informer has filed it there.
// Diagram: step 9 (ByIndex). client-go: MutationCache.ByIndex (which returns the written copy under the old value).
func TestMutationCacheByIndexFindsAWrittenCopyUnderItsNewValue(t *testing.T) {
	idx := indexer.NewIndexer(nil, indexer.Indexers{byApp: indexer.LabelIndexFunc("app")})
	mc := indexer.NewIntegerResourceVersionMutationCache(idx, indexer.MutationCacheOptions{Indexer: idx})
	require.NoError(t, idx.Add(version(newObj("shop", "web", "app=web"), "uid-1", "2")))
	require.NoError(t, idx.Add(version(newObj("shop", "db", "app=db"), "uid-2", "3")))
	moved := version(newObj("shop", "web", "app=api"), "uid-1", "5")

	require.NoError(t, mc.Mutation(moved))

	web, err := mc.ByIndex(byApp, "web")
	require.NoError(t, err)
	api, err := mc.ByIndex(byApp, "api")
	require.NoError(t, err)
	db, err := mc.ByIndex(byApp, "db")
	require.NoError(t, err)
	assert.Empty(t, web, "the written copy is no longer app=web")
	assert.Equal(t, []any{moved}, api)
	assert.Equal(t, []string{"shop/db"}, keysOf(t, db))
	assert.Equal(t, []string{"shop/web"}, mc.Keys())
}

// TestMutationCacheRejectsBadInput: objects without metadata or without a
// comparable resourceVersion, a missing backing store or indexer, and an
// unknown index are errors, never panics; a backing object whose
// resourceVersion cannot be compared wins over the written copy.
// Diagram: none. client-go: etcdObjectVersioner.CompareResourceVersion (which panics on a malformed resourceVersion).
func TestMutationCacheRejectsBadInput(t *testing.T) {
	store := indexer.NewStore(nil)
	mc := indexer.NewIntegerResourceVersionMutationCache(store, indexer.MutationCacheOptions{IncludeAdds: true})

	assert.Error(t, mc.Mutation("not an object"))
	assert.Error(t, mc.Mutation(nil))
	assert.ErrorContains(t, mc.Mutation(version(newObj("shop", "web"), "uid-1", "")), `indexer: mutation of "shop/web"`)
	assert.Error(t, mc.Mutation(version(newObj("shop", "web"), "uid-1", "abc")))
	assert.Error(t, mc.OnAddOrUpdate(nil))
	assert.Error(t, mc.OnDelete(nil))
	assert.Empty(t, mc.Keys(), "nothing was remembered")
	_, err := mc.ByIndex(byApp, "web")
	assert.EqualError(t, err, "indexer: no indexer has been provided to the mutation cache")
	_, _, err = indexer.NewIntegerResourceVersionMutationCache(nil, indexer.MutationCacheOptions{}).GetByKey("shop/web")
	assert.Error(t, err)
	idx := indexer.NewIndexer(nil, nil)
	_, err = indexer.NewIntegerResourceVersionMutationCache(idx, indexer.MutationCacheOptions{Indexer: idx}).ByIndex(byApp, "web")
	assert.ErrorIs(t, err, indexer.ErrNoSuchIndex)

	require.NoError(t, store.Add(version(newObj("shop", "web"), "uid-1", ""))) // not from a server
	require.NoError(t, mc.Mutation(version(newObj("shop", "web"), "uid-1", "4")))
	got, _, err := mc.GetByKey("shop/web")
	require.NoError(t, err)
	assert.Empty(t, rvOf(got), "a resourceVersion that cannot be compared never lets the written copy win")
	assert.Empty(t, mc.Keys())
}

// TestMutationCacheConcurrentWritersAndReaders runs Mutation, OnAddOrUpdate,
// OnDelete, GetByKey and ByIndex from many goroutines under the race
// detector; each reader sees resourceVersions that never go backwards for a
// key it alone writes, and the overlay stays consistent.
// Diagram: step 9. client-go: "Implementations must be thread-safe".
func TestMutationCacheConcurrentWritersAndReaders(t *testing.T) {
	idx := indexer.NewIndexer(nil, indexer.Indexers{byApp: indexer.LabelIndexFunc("app")})
	mc := indexer.NewIntegerResourceVersionMutationCache(idx, indexer.MutationCacheOptions{Indexer: idx, MaxCacheSize: 8})
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			name := fmt.Sprintf("obj-%d", w)
			last := 0
			for rv := 1; rv <= 60; rv++ {
				obj := version(newObj("shop", name, "app=web"), types.UID(name), fmt.Sprint(rv))
				switch rv % 3 {
				case 0:
					assert.NoError(t, idx.Update(obj))
					assert.NoError(t, mc.OnAddOrUpdate(obj))
				default:
					assert.NoError(t, mc.Mutation(obj))
				}
				if got, exists, err := mc.GetByKey("shop/" + name); assert.NoError(t, err) && exists {
					var seen int
					_, _ = fmt.Sscan(rvOf(got), &seen)
					assert.GreaterOrEqual(t, seen, last, "%s went back in time", name)
					last = seen
				}
				_, err := mc.ByIndex(byApp, "web")
				assert.NoError(t, err)
			}
			assert.NoError(t, mc.OnDelete(version(newObj("shop", name), types.UID(name), "61")))
		})
	}
	wg.Wait()
	requireConsistent(t, mc)
}
