package indexer_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/indexer"
)

// TestTransactionAppliesEveryWriteInOrder: adds, updates and deletes, with
// the indexes kept exact.
// Diagram: steps 4 and 5. client-go: cache.Transaction
func TestTransactionAppliesEveryWriteInOrder(t *testing.T) {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{byApp: indexer.LabelIndexFunc("app")})
	require.NoError(t, idx.Add(newObj("shop", "old", "app=db")))

	err := idx.Transaction(
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "web", "app=web")},
		indexer.Transaction{Type: indexer.TransactionTypeUpdate, Object: newObj("shop", "web", "app=api")},
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "cache", "app=web")},
		indexer.Transaction{Type: indexer.TransactionTypeDelete, Object: newObj("shop", "old")},
	)

	require.NoError(t, err)
	requireConsistent(t, idx)
	assert.Equal(t, []string{"shop/cache", "shop/web"}, keysOf(t, idx.List()))
	api, err := idx.IndexKeys(byApp, "api")
	require.NoError(t, err)
	assert.Equal(t, []string{"shop/web"}, api)
	assert.Equal(t, []string{"api", "web"}, idx.ListIndexFuncValues(byApp))
}

// TestTransactionSkipsFailedWritesAndReportsWhichSucceeded: a batch is many
// writes under one lock, not all or nothing. A write whose key, object or
// index fails is skipped, leaving the store as it was for that key; the
// error lists the indices that were applied so the caller tells its
// handlers about exactly those.
// Diagram: step 5. client-go: cache.Transaction (TransactionError)
func TestTransactionSkipsFailedWritesAndReportsWhichSucceeded(t *testing.T) {
	cause := errors.New("cannot index this")
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{byApp: failOn(cause)})
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))

	err := idx.Transaction(
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "a", "app=a")},
		indexer.Transaction{Type: indexer.TransactionTypeUpdate, Object: newObj("shop", "web", "fail=true")},
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: "no metadata"},
		indexer.Transaction{Type: "Upsert", Object: newObj("shop", "b")},
		indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "c", "app=c")},
	)

	var tErr *indexer.TransactionError
	require.ErrorAs(t, err, &tErr)
	assert.Equal(t, []int{0, 4}, tErr.SuccessfulIndices)
	assert.Equal(t, 5, tErr.TotalTransactions)
	assert.ErrorIs(t, err, cause)
	var keyErr indexer.KeyError
	assert.ErrorAs(t, err, &keyErr)
	assert.ErrorContains(t, err, "indexer: 3 of 5 writes in a transaction failed")
	assert.ErrorContains(t, err, `unknown transaction type "Upsert"`)
	requireConsistent(t, idx)
	assert.Equal(t, []string{"shop/a", "shop/c", "shop/web"}, keysOf(t, idx.List()))
	web, _, _ := idx.GetByKey("shop/web")
	assert.Equal(t, "web", web.(interface{ GetLabels() map[string]string }).GetLabels()["app"], "the failed update left web alone")
}

// TestTransactionIsSeenWholeByReaders: a reader never sees part of a batch.
// The writer moves every object from one index value to another in one
// transaction; readers, racing it, always find all of them under one value.
// Diagram: steps 5 and 9. client-go: threadSafeMap.Transaction
func TestTransactionIsSeenWholeByReaders(t *testing.T) {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{byApp: indexer.LabelIndexFunc("app")})
	const n = 50
	batch := func(app string) []indexer.Transaction {
		txns := make([]indexer.Transaction, n)
		for i := range txns {
			txns[i] = indexer.Transaction{Type: indexer.TransactionTypeUpdate,
				Object: newObj("shop", string(rune('A'+i%26))+string(rune('a'+i/26)), "app="+app)}
		}
		return txns
	}
	require.NoError(t, idx.Transaction(batch("blue")...))

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := range 200 {
			app := "green"
			if i%2 == 1 {
				app = "blue"
			}
			assert.NoError(t, idx.Transaction(batch(app)...))
		}
		close(stop)
	})
	for {
		select {
		case <-stop:
			wg.Wait()
			requireConsistent(t, idx)
			return
		default:
		}
		values := idx.ListIndexFuncValues(byApp)
		require.Len(t, values, 1, "a reader saw a batch half applied: %v", values)
	}
}
