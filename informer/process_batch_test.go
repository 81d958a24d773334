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

// TestProcessBatchWritesTheWholeBatchBeforeTellingAnyone: the batch goes
// into the cache in one transaction; the handler is told of each change
// afterwards, in order, with add or update decided by the cache as before.
//
// Diagram: steps 4-6. client-go: processDeltasInBatch
func TestProcessBatchWritesTheWholeBatchBeforeTellingAnyone(t *testing.T) {
	store := newCache(cm("a", "1"), cm("b", "1"))
	h := &wholeCacheHandler{store: store}

	err := processBatch(h, store, []deltafifo.Delta{
		{Type: deltafifo.Updated, Object: cm("a", "2")},
		{Type: deltafifo.Added, Object: cm("c", "3")},
		{Type: deltafifo.Deleted, Object: cm("b", "4")},
		{Type: deltafifo.Replaced, Object: cm("d", "5")},
	}, false, tracer{discard})

	require.NoError(t, err)
	assert.Equal(t, []string{
		"update ns/a@1->2 cache=[a@2 c@3 d@5]",
		"add ns/c@3 initial=false cache=[a@2 c@3 d@5]",
		"delete ns/b@4 cache=[a@2 c@3 d@5]",
		"add ns/d@5 initial=false cache=[a@2 c@3 d@5]",
	}, h.calls)
}

// TestProcessBatchTellsOnlyOfTheWritesTheCacheTook: an object the cache
// rejects is skipped and no handler hears of it; the rest of the batch goes
// ahead; the error says what failed.
//
// Diagram: steps 4-6. client-go: processDeltasInBatch (TransactionError)
func TestProcessBatchTellsOnlyOfTheWritesTheCacheTook(t *testing.T) {
	store := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexer.Indexers{
		"picky": func(obj any) ([]string, error) {
			if obj.(*unstructured.Unstructured).GetName() == "bad" {
				return nil, fmt.Errorf("cannot index bad")
			}
			return nil, nil
		},
	})
	h := &wholeCacheHandler{store: store}

	err := processBatch(h, store, []deltafifo.Delta{
		{Type: deltafifo.Added, Object: cm("a", "1")},
		{Type: deltafifo.Added, Object: cm("bad", "2")},
		{Type: deltafifo.Added, Object: cm("c", "3")},
	}, true, tracer{discard})

	assert.ErrorContains(t, err, "informer: batch: indexer: 1 of 3 writes in a transaction failed")
	assert.Equal(t, []string{
		"add ns/a@1 initial=true cache=[a@1 c@3]",
		"add ns/c@3 initial=true cache=[a@1 c@3]",
	}, h.calls)
}

// TestProcessBatchSaysNothingOfADeleteForAnObjectNotInTheCache: as
// processDeltas.
//
// Diagram: steps 4-6. client-go: processDeltasInBatch (which calls OnDelete)
func TestProcessBatchSaysNothingOfADeleteForAnObjectNotInTheCache(t *testing.T) {
	store := newCache(cm("a", "1"))
	h := &storeCheckingHandler{store: store}

	err := processBatch(h, store, []deltafifo.Delta{
		{Type: deltafifo.Deleted, Object: cm("never", "2")},
		{Type: deltafifo.Deleted, Object: deltafifo.DeletedFinalStateUnknown{Key: "ns/a", Obj: cm("a", "1")}},
	}, false, tracer{discard})

	require.NoError(t, err)
	assert.Equal(t, []string{"delete ns/a@tombstone cache=absent"}, h.calls)
}

// TestProcessBatchRefusesWholeStoreDeltas: PopBatch never batches them; if
// one arrives anyway it is an error, not a panic, and nothing is written.
//
// Diagram: step 4. client-go: processDeltasInBatch
func TestProcessBatchRefusesWholeStoreDeltas(t *testing.T) {
	store := newCache()
	h := &storeCheckingHandler{store: store}

	err := processBatch(h, store, []deltafifo.Delta{
		{Type: deltafifo.Added, Object: cm("a", "1")},
		{Type: deltafifo.SyncAll, Object: deltafifo.SyncAllInfo{}},
	}, false, tracer{discard})

	assert.ErrorContains(t, err, `informer: delta type "SyncAll" cannot be part of a batch`)
	assert.Empty(t, h.calls)
	assert.Empty(t, store.ListKeys())
}
