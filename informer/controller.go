package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/reflector"
)

// controller is the process loop: a Reflector fills a queue (diagram steps
// 1-2), and one goroutine pops the queue (step 3) and hands each popped
// Deltas to process, which updates the cache and notifies (steps 4-6).
//
// client-go: tools/cache.controller.
type controller struct {
	queue        deltafifo.Queue
	batchQueue   deltafifo.QueueWithBatch // the same queue, when it can pop batches; else nil
	reflector    *reflector.Reflector
	process      deltafifo.PopProcessFunc
	processBatch deltafifo.ProcessBatchFunc
	onSynced     func() // called after every write and pop; it checks queue.HasSynced
	logger       *slog.Logger
}

// run runs the Reflector on its own goroutine and the process loop on the
// caller's, until ctx is done. It returns once both have stopped, also when
// the process function panics: the panic goes on up the caller's stack
// after the Reflector has stopped.
func (c *controller) run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	stopClosing := context.AfterFunc(ctx, c.queue.Close) // unblocks a waiting Pop
	var wg sync.WaitGroup
	defer func() {
		stopClosing()
		cancel()
		c.queue.Close()
		wg.Wait()
	}()

	wg.Go(func() { c.reflector.Run(ctx) })
	c.processLoop(ctx)
}

// processLoop pops until the queue is closed or ctx is done. A process error
// is logged and the Deltas are dropped: nothing is retried (client-go's
// informers do the same), the next relist or resync repairs the cache.
func (c *controller) processLoop(ctx context.Context) {
	for ctx.Err() == nil {
		// Step 3 (pop object): block until a key (DeltaFIFO) or a change
		// (RealFIFO) is queued, then process it; an in-order queue hands
		// out a run of changes to distinct objects as one batch.
		var err error
		if c.batchQueue != nil {
			err = c.batchQueue.PopBatch(c.processBatch, c.process)
		} else {
			_, err = c.queue.Pop(c.process)
		}
		c.onSynced()
		if errors.Is(err, deltafifo.ErrFIFOClosed) {
			return
		}
		if err != nil {
			c.logger.Error("informer: could not apply a popped change; it is dropped", "err", err)
		}
	}
}

// syncSignallingStore is the Store the Reflector writes to: the queue, plus
// a check after each write of whether the queue has synced. A Pop is not
// always needed for that: an empty initial list syncs the queue at once.
// It also traces step 2.
type syncSignallingStore struct {
	queue    deltafifo.Queue
	onSynced func()
	trace    tracer
}

func (s syncSignallingStore) Add(obj any) error {
	s.trace.queued("add", obj)
	return s.after(s.queue.Add(obj))
}

func (s syncSignallingStore) Update(obj any) error {
	s.trace.queued("update", obj)
	return s.after(s.queue.Update(obj))
}

func (s syncSignallingStore) Delete(obj any) error {
	s.trace.queued("delete", obj)
	return s.after(s.queue.Delete(obj))
}

func (s syncSignallingStore) Replace(list []any, rv string) error {
	s.trace.replaced(len(list), rv)
	return s.after(s.queue.Replace(list, rv))
}

func (s syncSignallingStore) Resync() error { return s.queue.Resync() }

func (s syncSignallingStore) after(err error) error {
	s.onSynced()
	return err
}

// processDeltas applies one popped Deltas to the cache, oldest delta first,
// and notifies handler after each change — always after the cache holds it:
//
//   - Sync, Replaced, Added, Updated: if the key is cached, Update the cache
//     and call OnUpdate(cached, new); otherwise Add and call
//     OnAdd(new, isInInitialList). The delta type does not decide between
//     add and update; the cache does, so a relisted object that is already
//     cached becomes an update, possibly with an unchanged resourceVersion.
//   - Deleted: Delete from the cache and call OnDelete(obj); obj is a
//     [deltafifo.DeletedFinalStateUnknown] when a relist inferred the deletion.
//   - ReplacedAll, SyncAll (atomic queue): the whole list, or a resync, as
//     one delta; see processReplacedAll and processSyncAll.
//
// It stops at the first cache error, leaving the rest of the Deltas unapplied.
//
// client-go: tools/cache.processDeltas.
func processDeltas(handler ResourceEventHandler, store indexer.Store, deltas deltafifo.Deltas, isInInitialList bool, trace tracer) error {
	trace.popped(deltas, isInInitialList)
	for _, d := range deltas {
		obj := d.Object
		switch d.Type {
		case deltafifo.Sync, deltafifo.Replaced, deltafifo.Added, deltafifo.Updated:
			old, exists, err := store.Get(obj)
			if err != nil {
				return fmt.Errorf("informer: %s: %w", d.Type, err)
			}
			if exists {
				// Steps 4-5 (add object, store object & key): the cache first...
				if err := store.Update(obj); err != nil {
					return fmt.Errorf("informer: %s: %w", d.Type, err)
				}
				trace.stored("update", obj)
				// ...step 6 (dispatch event handler) after.
				handler.OnUpdate(old, obj)
				continue
			}
			if err := store.Add(obj); err != nil {
				return fmt.Errorf("informer: %s: %w", d.Type, err)
			}
			trace.stored("add", obj)
			handler.OnAdd(obj, isInInitialList)
		case deltafifo.Deleted:
			_, exists, err := store.Get(obj)
			if err != nil {
				return fmt.Errorf("informer: %s: %w", d.Type, err)
			}
			if !exists {
				// The in-order RealFIFO delivers every deletion it is given,
				// including a second one for an object already gone (a
				// relist's tombstone racing the watch's DELETED). The cache
				// does not hold it, so no handler was ever told it exists,
				// or it was already told it is gone: say nothing.
				continue
			}
			if err := store.Delete(obj); err != nil {
				return fmt.Errorf("informer: %s: %w", d.Type, err)
			}
			trace.stored("delete", obj)
			handler.OnDelete(obj)
		case deltafifo.ReplacedAll:
			info, ok := obj.(deltafifo.ReplacedAllInfo)
			if !ok {
				return fmt.Errorf("informer: ReplacedAll delta carries %T", obj)
			}
			if err := processReplacedAll(handler, store, info, isInInitialList, trace); err != nil {
				return err
			}
		case deltafifo.SyncAll:
			processSyncAll(handler, store)
		default:
			return fmt.Errorf("informer: unknown delta type %q", d.Type)
		}
	}
	return nil
}

// sameResourceVersion reports whether two objects carry the same
// resourceVersion: then an update between them changed nothing, and is
// treated as a resync (client-go compares them the same way, empty included).
func sameResourceVersion(oldObj, newObj any) bool {
	o, err1 := meta.Accessor(oldObj)
	n, err2 := meta.Accessor(newObj)
	if err1 != nil || err2 != nil {
		return false
	}
	return o.GetResourceVersion() == n.GetResourceVersion()
}
