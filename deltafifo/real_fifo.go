package deltafifo

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/informerlab/informerlab/indexer"
)

// RealFIFO is the modern, in-order alternative to [DeltaFIFO]: one line of
// deltas, not of keys. Every notification is delivered, in the order it
// arrived, one delta per Pop: nothing is coalesced per key and repeated
// deletions are not collapsed. A consumer that applies each delta to its
// store as it comes therefore sees the changes across objects in the order
// the server made them.
//
// It has two modes, as client-go's RealFIFO does. By default a relist becomes
// tombstones for what vanished followed by one Replaced delta per listed
// object, and a resync one Sync delta per known object. With
// Options.AtomicEvents a relist is one [ReplacedAll] delta and a resync one
// [SyncAll] delta (atomic.go), so that the consumer can replace its whole
// store before telling anyone, and its store never mixes two lists.
// [RealFIFO.PopBatch] hands out runs of deltas for distinct objects in one
// call (pop_batch.go), in either mode.
//
// It is safe for concurrent use, with the same one-producer, one-consumer
// expectation as DeltaFIFO (with UnlockWhileProcessing, one consumer is a
// requirement). Its zero value is not usable: call [NewRealFIFO].
//
// client-go: tools/cache.RealFIFO.
type RealFIFO struct {
	keyFunc               indexer.KeyFunc
	knownObjects          KeyListerGetter
	transformer           TransformFunc
	logger                *slog.Logger
	atomic                bool // Options.AtomicEvents
	unlockWhileProcessing bool // Options.UnlockWhileProcessing
	batchSize             int  // the most deltas one PopBatch takes

	// synced mirrors populated && initialPopulationCount == 0.
	synced atomic.Bool

	cond *sync.Cond // wakes Pop when items grows or the FIFO closes; its L is &mu

	mu sync.Mutex // guards everything below
	// Invariants (checkInvariants verifies them):
	//   - every entry has a known DeltaType; ReplacedAll and SyncAll entries
	//     appear only in atomic mode, have an empty key and carry a
	//     ReplacedAllInfo or SyncAllInfo; every other entry has a non-empty key;
	//   - outside Pop and PopBatch, 0 <= initialPopulationCount <= len(items);
	//   - !populated implies initialPopulationCount == 0;
	//   - synced == populated && initialPopulationCount == 0.
	items                  []keyedDelta // oldest first
	populated              bool
	initialPopulationCount int // deltas of the first Replace not yet processed
	closed                 bool
}

// keyedDelta is a queued delta with the key computed when it arrived ("" for
// ReplacedAll and SyncAll, which are about no one object).
type keyedDelta struct {
	key string
	Delta
}

// NewRealFIFO returns an empty RealFIFO. In the default mode KnownObjects is
// optional here (client-go requires it): without it, Replace infers deletions
// only for keys still queued, and Resync does nothing. It starts no
// goroutine.
//
// It panics on the combinations client-go also refuses, which are
// programming errors: AtomicEvents with KnownObjects (an atomic queue never
// reads the consumer's store; the consumer does), and UnlockWhileProcessing
// without AtomicEvents (a non-atomic queue reads the consumer's store, which
// must not change under it).
func NewRealFIFO(opts Options) *RealFIFO {
	if opts.AtomicEvents && opts.KnownObjects != nil {
		panic("deltafifo: NewRealFIFO: AtomicEvents needs a nil KnownObjects: the consumer, not the queue, compares a list with its store")
	}
	if opts.UnlockWhileProcessing && !opts.AtomicEvents {
		panic("deltafifo: NewRealFIFO: UnlockWhileProcessing needs AtomicEvents")
	}
	opts = opts.withDefaults()
	f := &RealFIFO{
		keyFunc:               opts.KeyFunction,
		knownObjects:          opts.KnownObjects,
		transformer:           opts.Transformer,
		logger:                opts.Logger,
		atomic:                opts.AtomicEvents,
		unlockWhileProcessing: opts.UnlockWhileProcessing,
		batchSize:             DefaultBatchSize,
	}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// Add queues an Added delta.
func (f *RealFIFO) Add(obj any) error { return f.enqueue("add", Added, obj) }

// Update queues an Updated delta.
func (f *RealFIFO) Update(obj any) error { return f.enqueue("update", Updated, obj) }

// Delete queues a Deleted delta, always: unlike DeltaFIFO, RealFIFO does not
// check whether anyone knows the object.
func (f *RealFIFO) Delete(obj any) error { return f.enqueue("delete", Deleted, obj) }

func (f *RealFIFO) enqueue(op string, t DeltaType, obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return fmt.Errorf("deltafifo: %s: %w", op, err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	obj, err = transform(f.transformer, obj)
	if err != nil {
		return fmt.Errorf("deltafifo: %s %q: %w", op, key, err)
	}
	f.populated = true
	f.updateSyncedLocked()
	// Step 2 (add object): the change joins the end of the one line.
	f.appendLocked(key, t, obj)
	return nil
}

func (f *RealFIFO) appendLocked(key string, t DeltaType, obj any) {
	f.items = append(f.items, keyedDelta{key: key, Delta: Delta{Type: t, Object: obj}})
	f.cond.Broadcast()
}

func (f *RealFIFO) updateSyncedLocked() {
	f.synced.Store(f.populated && f.initialPopulationCount == 0)
}

// Replace takes the result of a (re)list, all or nothing like DeltaFIFO's,
// but in a different order, because there is no per-key history to append to:
//
//  1. a tombstone for every queued key the list lacks, in order of first
//     appearance, unless that key's last queued delta is already Deleted;
//  2. a tombstone for every known key the list lacks and nothing queued
//     mentions, in sorted order;
//  3. a Replaced delta for every listed object, in list order.
//
// In atomic mode it queues one [ReplacedAll] delta instead (atomic.go).
//
// The first Replace is the initial list: HasSynced stays false until every
// delta it queued has been processed.
func (f *RealFIFO) Replace(list []any, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	keys, objs, listed, err := prepareList(f.keyFunc, f.transformer, list)
	if err != nil {
		return err
	}
	if f.atomic {
		f.replaceAllLocked(objs, resourceVersion)
		f.markInitialListLocked()
		return nil
	}

	last := map[string]Delta{}
	var queued []string
	for _, it := range f.items {
		if _, seen := last[it.key]; !seen {
			queued = append(queued, it.key)
		}
		last[it.key] = it.Delta
	}
	for _, key := range queued {
		if listed[key] || last[key].Type == Deleted {
			continue
		}
		f.appendLocked(key, Deleted, DeletedFinalStateUnknown{Key: key, Obj: last[key].Object})
	}

	for _, t := range knownTombstones(f.knownObjects, f.logger, func(key string) bool {
		_, isQueued := last[key]
		return listed[key] || isQueued
	}) {
		f.appendLocked(t.Key, Deleted, t)
	}

	for i, key := range keys {
		// Step 2 (add object): a listed object is queued as Replaced.
		f.appendLocked(key, Replaced, objs[i])
	}
	f.markInitialListLocked()
	return nil
}

// markInitialListLocked makes the first Replace the initial list: every
// delta queued so far must be processed before HasSynced turns true.
func (f *RealFIFO) markInitialListLocked() {
	if !f.populated {
		f.populated = true
		f.initialPopulationCount = len(f.items)
		f.updateSyncedLocked()
	}
}

// Resync queues a Sync delta for every known object whose key appears nowhere
// in the queue, in sorted key order, atomically. Without KnownObjects it does
// nothing. In atomic mode it queues one [SyncAll] delta instead (atomic.go).
func (f *RealFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.atomic {
		f.syncAllLocked()
		return nil
	}
	if f.knownObjects == nil {
		return nil
	}

	queued := make(map[string]bool, len(f.items))
	for _, it := range f.items {
		queued[it.key] = true
	}
	known := f.knownObjects.ListKeys()
	slices.Sort(known)
	for _, key := range known {
		if queued[key] {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		if err != nil {
			f.logger.Error("deltafifo: cannot read known object; not resyncing it", "key", key, "err", err)
			continue
		}
		if !exists {
			continue
		}
		f.appendLocked(key, Sync, obj)
	}
	return nil
}

// Pop blocks until a delta is queued, removes the oldest one and calls
// process with it as a one-element Deltas. Everything else is as for
// [DeltaFIFO.Pop]: process runs under the lock (unless UnlockWhileProcessing
// lets it go, see [RealFIFO.PopBatch]), its error is returned, the
// initial-list count drops only after it returns, and Pop returns
// [ErrFIFOClosed] once the queue is closed and empty.
func (f *RealFIFO) Pop(process PopProcessFunc) (Deltas, error) {
	if process == nil {
		return nil, errNilProcess
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(); err != nil {
		return nil, err
	}

	// Step 3 (pop object): the oldest delta, whatever its key.
	deltas := Deltas{f.items[0].Delta}
	f.items[0] = keyedDelta{}
	f.items = f.items[1:]

	isInInitialList := !f.synced.Load()
	defer f.processedLocked(1)
	return deltas, f.processLocked(func() error { return process(deltas, isInInitialList) })
}

// waitLocked blocks until something is queued; it returns ErrFIFOClosed once
// the queue is closed and empty.
func (f *RealFIFO) waitLocked() error {
	for len(f.items) == 0 {
		if f.closed {
			return ErrFIFOClosed
		}
		f.cond.Wait()
	}
	return nil
}

// processedLocked counts n processed deltas against the initial list. It
// runs only once the process function has returned (it is deferred), so
// HasSynced never turns true while the last initial delta is being handled.
func (f *RealFIFO) processedLocked(n int) {
	if f.initialPopulationCount > 0 {
		f.initialPopulationCount -= n
		f.updateSyncedLocked()
	}
}

// processLocked runs process, with mu held on entry and on return. With
// UnlockWhileProcessing it lets mu go meanwhile, unless two full batches or
// more are waiting: then the producer must wait, or the queue would grow
// without bound behind a slow consumer.
func (f *RealFIFO) processLocked(process func() error) error {
	if f.unlockWhileProcessing && len(f.items) < 2*f.batchSize {
		f.mu.Unlock()
		defer f.mu.Lock()
	}
	return process()
}

// HasSynced reports whether every delta of the first Replace has been
// processed (or whether Add, Update or Delete came first). It never waits
// for the lock.
func (f *RealFIFO) HasSynced() bool { return f.synced.Load() }

// Close marks the queue closed and wakes every blocked Pop.
func (f *RealFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *RealFIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// KeyOf returns the key of obj, unwrapping Deltas, a Delta (an entry of
// [RealFIFO.Queued]) and tombstones like [DeltaFIFO.KeyOf]. A [ReplacedAll]
// or [SyncAll] delta has no key: its KeyOf is an error.
func (f *RealFIFO) KeyOf(obj any) (string, error) { return keyOf(f.keyFunc, obj) }

// ListKeys returns each queued key once, in the order of its oldest delta.
// A queued [ReplacedAll] or [SyncAll] delta concerns no one key and adds
// none.
func (f *RealFIFO) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := make(map[string]bool, len(f.items))
	var keys []string
	for _, it := range f.items {
		if it.key != "" && !seen[it.key] {
			seen[it.key] = true
			keys = append(keys, it.key)
		}
	}
	return keys
}
