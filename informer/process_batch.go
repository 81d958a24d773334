package informer

import (
	"errors"
	"fmt"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// processBatch applies a batch popped from an in-order queue: deltas to
// distinct objects, in arrival order. It decides add or update for each
// against the cache (as processDeltas does), writes the whole batch with one
// [indexer.Store.Transaction] — one lock acquisition instead of one per
// object — and then calls the handler for each write, in order. A write the
// cache rejects is skipped, and no handler hears of it; the others go ahead,
// and the error names the ones that failed.
//
// A deletion of an object the cache does not hold is dropped, as in
// processDeltas.
//
// client-go: tools/cache.processDeltasInBatch.
func processBatch(handler ResourceEventHandler, store indexer.Store, deltas []deltafifo.Delta, isInInitialList bool, trace tracer) error {
	trace.poppedBatch(deltas, isInInitialList)
	txns := make([]indexer.Transaction, 0, len(deltas))
	notify := make([]func(), 0, len(deltas))
	for _, d := range deltas {
		obj := d.Object
		switch d.Type {
		case deltafifo.Sync, deltafifo.Replaced, deltafifo.Added, deltafifo.Updated:
			// The objects are distinct, so the cache holds the state before
			// this delta; a lookup that fails makes an Add whose own key
			// failure the transaction reports.
			if old, exists, err := store.Get(obj); err == nil && exists {
				txns = append(txns, indexer.Transaction{Type: indexer.TransactionTypeUpdate, Object: obj})
				notify = append(notify, func() {
					trace.stored("update", obj)
					handler.OnUpdate(old, obj)
				})
				continue
			}
			txns = append(txns, indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: obj})
			notify = append(notify, func() {
				trace.stored("add", obj)
				handler.OnAdd(obj, isInInitialList)
			})
		case deltafifo.Deleted:
			if _, exists, err := store.Get(obj); err == nil && !exists {
				continue // see processDeltas: no handler hears of it
			}
			txns = append(txns, indexer.Transaction{Type: indexer.TransactionTypeDelete, Object: obj})
			notify = append(notify, func() {
				trace.stored("delete", obj)
				handler.OnDelete(obj)
			})
		default:
			return fmt.Errorf("informer: delta type %q cannot be part of a batch", d.Type)
		}
	}

	// Steps 4-5 (add object, store object & key): the batch under one lock...
	err := store.Transaction(txns...)
	if err == nil {
		// ...step 6 (dispatch event handler) after.
		for _, n := range notify {
			n()
		}
		return nil
	}
	var tErr *indexer.TransactionError
	if !errors.As(err, &tErr) {
		return fmt.Errorf("informer: batch: %w", err)
	}
	for _, i := range tErr.SuccessfulIndices {
		notify[i]()
	}
	return fmt.Errorf("informer: batch: %w", err)
}
