package deltafifolab

import (
	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
)

// DeltaFIFO is a line of keys, each holding every Delta of its object
// since the consumer last popped it. The data types are informerlab's:
// deltafifo.Delta, deltafifo.Deltas, deltafifo.DeletedFinalStateUnknown
// and the delta types deltafifo.Added, Updated, Deleted, Replaced, Sync.
// It is safe for one producer and one consumer on different goroutines:
// the suite runs them at the same time, so grade with -race.
type DeltaFIFO struct {
	// Your fields here: a lock and a condition variable, items (key →
	// Deltas), the line of keys, knownObjects, keyFunc, the initial-list
	// bookkeeping, closed, and the synced flag HasSynced reads (an
	// atomic.Bool: see HasSynced).
}

// New returns an empty DeltaFIFO. keyFunc keys objects (it understands
// DeletedFinalStateUnknown); known is the consumer's store, possibly nil.
func New(keyFunc indexer.KeyFunc, known deltafifo.KeyListerGetter) *DeltaFIFO {
	panic(grade.NotImplemented("New"))
}

// Add queues an Added delta for obj.
func (f *DeltaFIFO) Add(obj any) error {
	panic(grade.NotImplemented("DeltaFIFO.Add"))
}

// Update queues an Updated delta for obj.
func (f *DeltaFIFO) Update(obj any) error {
	panic(grade.NotImplemented("DeltaFIFO.Update"))
}

// Delete queues a Deleted delta for obj, unless nobody knows the object
// (nothing queued for its key and not in the consumer's store). Two
// Deleted deltas in a row collapse into one, the real object winning over
// a tombstone.
func (f *DeltaFIFO) Delete(obj any) error {
	panic(grade.NotImplemented("DeltaFIFO.Delete"))
}

// Replace takes the result of a (re)list: a Replaced delta for every
// listed object, in order; a Deleted tombstone
// (DeletedFinalStateUnknown{Key, Obj}) for every queued key the list
// lacks, holding its newest queued object, and for every key of the
// consumer's store the list lacks and with nothing queued, holding the
// stored object. A tombstone holds an object, never another tombstone: if
// the newest queued delta is already one, use the object inside it. The
// first Replace is the initial list (see HasSynced).
//
// Replace is all or nothing: if any listed object cannot be keyed, it
// returns the error having changed nothing (no delta, no tombstone, no
// initial list), so key every object before queueing any.
func (f *DeltaFIFO) Replace(list []any, resourceVersion string) error {
	panic(grade.NotImplemented("DeltaFIFO.Replace"))
}

// Resync queues a Sync delta, holding the stored object, for every key of
// the consumer's store that has nothing queued.
func (f *DeltaFIFO) Resync() error {
	panic(grade.NotImplemented("DeltaFIFO.Resync"))
}

// Pop blocks until a key is queued, removes the first key and calls
// process with its Deltas (oldest first) and whether the key came from the
// initial list; it returns those Deltas and process's error. The key is
// gone either way: nothing is requeued.
//
// process runs with the queue locked: the consumer updates its store
// inside it, and a Replace, Resync or Delete that ran meanwhile would read
// that store half updated. So an Add from another goroutine waits until
// process has returned.
//
// After Close, Pop still hands out what is queued; only a closed and empty
// queue returns deltafifo.ErrFIFOClosed (at once, without waiting).
func (f *DeltaFIFO) Pop(process deltafifo.PopProcessFunc) (deltafifo.Deltas, error) {
	panic(grade.NotImplemented("DeltaFIFO.Pop"))
}

// HasSynced reports whether the initial list has been popped and
// processed completely; true at once if the first list was empty or an
// Add, Update or Delete came before any Replace. While the last initial
// key is being processed it is still false.
//
// HasSynced is called inside process (an informer's handlers ask it), while
// Pop holds the lock: it must not take the lock, or it waits for itself
// forever. Keep the answer in an atomic.Bool, stored under the lock
// wherever the bookkeeping changes, and have HasSynced only load it.
// (client-go's DeltaFIFO takes its lock here; its informers never call it
// from inside process.)
func (f *DeltaFIFO) HasSynced() bool {
	panic(grade.NotImplemented("DeltaFIFO.HasSynced"))
}

// Close wakes every waiting Pop. Pop still hands out the keys queued;
// a closed, empty queue pops deltafifo.ErrFIFOClosed.
func (f *DeltaFIFO) Close() {
	panic(grade.NotImplemented("DeltaFIFO.Close"))
}

// ListKeys returns the queued keys.
func (f *DeltaFIFO) ListKeys() []string {
	panic(grade.NotImplemented("DeltaFIFO.ListKeys"))
}
