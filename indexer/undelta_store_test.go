package indexer_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/indexer"
)

// pushRecorder collects what an UndeltaStore pushes, as sorted keys.
type pushRecorder struct {
	t      testing.TB
	mu     sync.Mutex
	pushes [][]string
}

func (r *pushRecorder) push(objs []any) {
	keys := keysOf(r.t, objs)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pushes = append(r.pushes, keys)
}

func (r *pushRecorder) all() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.pushes...)
}

// TestUndeltaStorePushesWholeContentsAfterEachWrite walks an UndeltaStore
// through every write: each one is followed by exactly one push of
// everything the store holds, not of what changed.
// Diagram: step 5, with the contents pushed on. client-go: UndeltaStore.Add, Update, Delete, Replace.
func TestUndeltaStorePushesWholeContentsAfterEachWrite(t *testing.T) {
	rec := &pushRecorder{t: t}
	store := indexer.NewUndeltaStore(rec.push, indexer.MetaNamespaceKeyFunc)
	web, db := newObj("shop", "web"), newObj("shop", "db")

	require.NoError(t, store.Add(web))
	require.NoError(t, store.Add(db))
	require.NoError(t, store.Update(newObj("shop", "web", "v=2")))
	require.NoError(t, store.Delete(db))
	require.NoError(t, store.Replace([]any{newObj("blog", "web"), newObj("blog", "db")}, "7"))
	requireConsistent(t, store)

	t.Logf("pushes after Add, Add, Update, Delete, Replace: %v", rec.all())
	assert.Equal(t, [][]string{
		{"shop/web"},
		{"shop/db", "shop/web"},
		{"shop/db", "shop/web"},
		{"shop/web"},
		{"blog/db", "blog/web"},
	}, rec.all())
	assert.Equal(t, []string{"blog/db", "blog/web"}, keysOf(t, store.List()))
}

// TestUndeltaStoreDeleteOfAbsentKeyStillPushes checks that a Delete that
// finds nothing is still a write that succeeded, and pushes the unchanged
// contents, as client-go does.
// Diagram: step 5. client-go: UndeltaStore.Delete (pushes after every successful Delete).
func TestUndeltaStoreDeleteOfAbsentKeyStillPushes(t *testing.T) {
	rec := &pushRecorder{t: t}
	store := indexer.NewUndeltaStore(rec.push, indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("shop", "web")))

	require.NoError(t, store.Delete(newObj("shop", "gone")))

	assert.Equal(t, [][]string{{"shop/web"}, {"shop/web"}}, rec.all())
}

// TestUndeltaStoreReadsDoNotPush checks that no read, and no Resync, pushes.
// Diagram: step 9. client-go: UndeltaStore (only the four writes push).
func TestUndeltaStoreReadsDoNotPush(t *testing.T) {
	rec := &pushRecorder{t: t}
	store := indexer.NewUndeltaStore(rec.push, indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("shop", "web")))

	_ = store.List()
	_ = store.ListKeys()
	_, exists, err := store.Get(newObj("shop", "web"))
	require.NoError(t, err)
	assert.True(t, exists)
	_, _, _ = store.GetByKey("shop/web")
	require.NoError(t, store.Resync())

	assert.Len(t, rec.all(), 1, "only the Add pushed")
}

// TestUndeltaStoreFailedWriteDoesNotPush checks that a write that fails
// (a nil object, an object without a key, a Replace with one bad object)
// returns its error, leaves the store as it was and pushes nothing.
// Diagram: step 5. client-go: UndeltaStore returns the Store's error before pushing.
func TestUndeltaStoreFailedWriteDoesNotPush(t *testing.T) {
	rec := &pushRecorder{t: t}
	store := indexer.NewUndeltaStore(rec.push, indexer.MetaNamespaceKeyFunc)
	require.NoError(t, store.Add(newObj("shop", "web")))

	assert.Error(t, store.Add(nil))
	assert.Error(t, store.Update("not an object"))
	assert.Error(t, store.Delete(42))
	assert.Error(t, store.Replace([]any{newObj("shop", "db"), "not an object"}, "8"))
	requireConsistent(t, store)

	assert.Equal(t, [][]string{{"shop/web"}}, rec.all())
	assert.Equal(t, []string{"shop/web"}, store.ListKeys())
}

// TestUndeltaStoreTransactionPushesOnceIfAnyWriteApplied checks that a
// batch is one write: one push after it if at least one of its writes was
// applied, none if all failed or it was empty.
// Diagram: steps 4-5, a batch at a time. client-go: none (its UndeltaStore has no Transaction).
func TestUndeltaStoreTransactionPushesOnceIfAnyWriteApplied(t *testing.T) {
	rec := &pushRecorder{t: t}
	store := indexer.NewUndeltaStore(rec.push, indexer.MetaNamespaceKeyFunc)

	require.NoError(t, store.Transaction(
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "web")},
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "db")},
		indexer.Transaction{Type: indexer.TransactionTypeDelete, Object: newObj("shop", "web")},
	))
	err := store.Transaction(
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: "not an object"},
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "web")},
	)
	var txnErr *indexer.TransactionError
	require.True(t, errors.As(err, &txnErr))
	assert.Error(t, store.Transaction(indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: nil}))
	require.NoError(t, store.Transaction())
	requireConsistent(t, store)

	assert.Equal(t, [][]string{{"shop/db"}, {"shop/db", "shop/web"}}, rec.all())
}

// TestUndeltaStoreConcurrentWritersPushInWriteOrder runs writers at the
// same time, each adding its own keys. Run with -race. The pushes arrive
// one at a time and in the order of the writes, so the n-th push holds
// exactly n objects and the last one is what the store holds; client-go
// releases its lock between a write and its push, so two writers can push
// the same contents twice, or the older contents last.
// Diagram: step 5. client-go: UndeltaStore (its pushes may repeat or arrive out of order).
func TestUndeltaStoreConcurrentWritersPushInWriteOrder(t *testing.T) {
	const writers, writes = 4, 100
	rec := &pushRecorder{t: t}
	store := indexer.NewUndeltaStore(rec.push, indexer.MetaNamespaceKeyFunc)

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range writes {
				assert.NoError(t, store.Add(newObj(fmt.Sprintf("w%d", w), fmt.Sprintf("obj-%d", i))))
			}
		})
	}
	wg.Wait()
	requireConsistent(t, store)

	pushes := rec.all()
	require.Len(t, pushes, writers*writes)
	for n, keys := range pushes {
		require.Len(t, keys, n+1, "push %d", n)
	}
	assert.Equal(t, keysOf(t, store.List()), pushes[len(pushes)-1])
}

// TestUndeltaStorePushMayReadTheStore checks that push can read the store it
// is called from without blocking, and sees there what it was handed.
// Diagram: steps 5 and 9. client-go: UndeltaStore (reads take no lock of its own).
func TestUndeltaStorePushMayReadTheStore(t *testing.T) {
	var store indexer.Store
	var seen []string
	store = indexer.NewUndeltaStore(func(objs []any) {
		assert.Equal(t, keysOf(t, objs), keysOf(t, store.List()))
		seen = append(seen, store.ListKeys()...)
	}, indexer.MetaNamespaceKeyFunc)

	require.NoError(t, store.Add(newObj("shop", "web")))

	assert.Equal(t, []string{"shop/web"}, seen)
}

// TestUndeltaStoreWithNilPushIsAPlainStore checks that a nil push is no
// error on a write: the store works and pushes nothing.
// Diagram: step 5. client-go: NewUndeltaStore (a nil PushFunc panics on the first write).
func TestUndeltaStoreWithNilPushIsAPlainStore(t *testing.T) {
	store := indexer.NewUndeltaStore(nil, nil)

	require.NoError(t, store.Add(newObj("shop", "web")))
	require.NoError(t, store.Delete(newObj("shop", "web")))
	require.NoError(t, store.Replace([]any{newObj("shop", "db")}, ""))

	assert.Equal(t, []string{"shop/db"}, store.ListKeys())
	requireConsistent(t, store)
}
