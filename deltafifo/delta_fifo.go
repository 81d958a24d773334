package deltafifo

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/informerlab/informerlab/indexer"
)

// DeltaFIFO is a queue of keys, each holding every [Delta] that happened to
// its object since the consumer last popped it. A key keeps its place in line
// when more deltas arrive for it, so a busy object cannot starve the others
// and the consumer sees each object's whole recent history at once.
//
// It is safe for concurrent use by one producer and one consumer (more of
// either work, but two consumers could process two versions of one object in
// parallel). Its zero value is not usable: call [New].
//
// client-go: tools/cache.DeltaFIFO.
type DeltaFIFO struct {
	keyFunc      indexer.KeyFunc
	knownObjects KeyListerGetter
	transformer  TransformFunc
	logger       *slog.Logger

	// synced mirrors populated && initialPopulationCount == 0, so HasSynced
	// answers at once even while a Pop holds mu.
	synced atomic.Bool

	cond *sync.Cond // wakes Pop when queue grows or the FIFO closes; its L is &mu

	mu sync.Mutex // guards everything below
	// Invariants (checkInvariants verifies them):
	//   - queue and items hold exactly the same keys, and queue has no duplicates;
	//   - itemsPeak >= len(items);
	//   - every Deltas in items is non-empty and has no two Deleted deltas in a row;
	//   - outside Pop, 0 <= initialPopulationCount <= len(queue); as keys only
	//     ever join at the end, the initial keys are the first ones in queue;
	//   - !populated implies initialPopulationCount == 0;
	//   - synced == populated && initialPopulationCount == 0.
	items                  map[string]Deltas
	itemsPeak              int      // the most keys items has held since it was made
	queue                  keyQueue // keys in the order they first arrived
	populated              bool     // a Replace, Add, Update or Delete has happened
	initialPopulationCount int      // keys of the first Replace not yet processed
	closed                 bool
}

// New returns an empty DeltaFIFO. It emits Replaced deltas for a relist
// (client-go's EmitDeltaTypeReplaced is always on here). It starts no goroutine.
// It panics if opts sets AtomicEvents or UnlockWhileProcessing, which are
// RealFIFO modes: asking a DeltaFIFO for them is a programming error.
func New(opts Options) *DeltaFIFO {
	if opts.AtomicEvents || opts.UnlockWhileProcessing {
		panic("deltafifo: New: AtomicEvents and UnlockWhileProcessing are RealFIFO modes; use NewRealFIFO")
	}
	opts = opts.withDefaults()
	f := &DeltaFIFO{
		keyFunc:      opts.KeyFunction,
		knownObjects: opts.KnownObjects,
		transformer:  opts.Transformer,
		logger:       opts.Logger,
		items:        map[string]Deltas{},
	}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// Add queues an Added delta for obj.
func (f *DeltaFIFO) Add(obj any) error {
	return f.enqueue("add", Added, obj)
}

// Update queues an Updated delta for obj.
func (f *DeltaFIFO) Update(obj any) error {
	return f.enqueue("update", Updated, obj)
}

// Delete queues a Deleted delta for obj, unless its key is neither queued nor
// among the known objects: then the object was already deleted (typically by
// a relist's tombstone) or never seen, and Delete does nothing.
func (f *DeltaFIFO) Delete(obj any) error {
	return f.enqueue("delete", Deleted, obj)
}

// enqueue is Add, Update and Delete: key, check, transform, append.
func (f *DeltaFIFO) enqueue(op string, t DeltaType, obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return fmt.Errorf("deltafifo: %s: %w", op, err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if t == Deleted && !f.knownLocked(key) {
		f.markPopulatedLocked()
		return nil
	}
	obj, err = transform(f.transformer, obj)
	if err != nil {
		return fmt.Errorf("deltafifo: %s %q: %w", op, key, err)
	}
	f.markPopulatedLocked()
	// Step 2 (add object): the change joins its key's Deltas.
	f.appendLocked(key, Delta{Type: t, Object: obj})
	return nil
}

// knownLocked reports whether anyone has heard of key: the queue, or the
// consumer's store. A store that cannot answer counts as knowing, so a real
// deletion is never dropped.
func (f *DeltaFIFO) knownLocked(key string) bool {
	if _, queued := f.items[key]; queued {
		return true
	}
	if f.knownObjects == nil {
		return false
	}
	_, exists, err := f.knownObjects.GetByKey(key)
	return exists || err != nil
}

// appendLocked adds d to key's Deltas. A new key joins the end of the line; a
// queued key stays where it is.
func (f *DeltaFIFO) appendLocked(key string, d Delta) {
	if old, queued := f.items[key]; queued {
		f.items[key] = dedupDeltas(append(old, d))
	} else {
		f.items[key] = Deltas{d}
		f.itemsPeak = max(f.itemsPeak, len(f.items))
		f.queue.push(key)
	}
	f.cond.Broadcast()
}

// dedupDeltas collapses the last two deltas when both are deletions: the
// same deletion reported twice (by a watch event and by a relist, say). It
// keeps the one with more information: the older one, unless the older one
// is a tombstone and the newer one is not.
func dedupDeltas(d Deltas) Deltas {
	n := len(d)
	if n < 2 || d[n-1].Type != Deleted || d[n-2].Type != Deleted {
		return d
	}
	if _, olderIsTombstone := d[n-2].Object.(DeletedFinalStateUnknown); olderIsTombstone {
		d[n-2] = d[n-1]
	}
	d[n-1] = Delta{}
	return d[:n-1]
}

func (f *DeltaFIFO) markPopulatedLocked() {
	f.populated = true
	f.updateSyncedLocked()
}

func (f *DeltaFIFO) updateSyncedLocked() {
	f.synced.Store(f.populated && f.initialPopulationCount == 0)
}

// HasSynced reports whether the initial list has been delivered: true once
// every key queued by the first Replace has been popped and its process
// function has returned, or at once if Add, Update or Delete came before any
// Replace. It never waits for the lock, so it can be called anywhere,
// including from inside a PopProcessFunc.
func (f *DeltaFIFO) HasSynced() bool {
	return f.synced.Load()
}

// Close marks the queue closed and wakes every blocked Pop. Pop keeps
// handing out what is still queued and returns [ErrFIFOClosed] once the
// queue is empty. Close is idempotent.
func (f *DeltaFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *DeltaFIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// KeyOf returns the key obj is queued under. It accepts a Deltas (its newest
// object's key), a [Delta] (its object's key, so each entry of a Queued can
// be keyed) and a [DeletedFinalStateUnknown] (its Key) as well as plain
// objects. Failures are [indexer.KeyError]s.
func (f *DeltaFIFO) KeyOf(obj any) (string, error) {
	return keyOf(f.keyFunc, obj)
}

// ListKeys returns the queued keys in the order Pop will take them.
func (f *DeltaFIFO) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queue.queued()...)
}
