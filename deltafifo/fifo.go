package deltafifo

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/informerlab/informerlab/indexer"
)

// FIFO is the classic queue, the ancestor of [DeltaFIFO]: a line of keys
// where each key holds only the newest state of its object. Adding an object
// whose key is waiting replaces the waiting object and keeps its place;
// deleting it takes it out of the line. The consumer pops every object that
// still exists exactly once, in its newest version.
//
// What it cannot do is why informers use a DeltaFIFO: its consumer never
// hears of a deletion (the object just is not popped), cannot tell an
// addition from an update, and sees a delete followed by a re-creation as
// an update. A relist through Replace drops vanished objects just as
// silently. A consumer that only needs "process the latest version of every
// object that exists" can use it; a cache that must follow deletions cannot.
//
// It is safe for concurrent use by one producer and one consumer. Its zero
// value is not usable: call [NewFIFO]. It implements the producer's side of
// a [Queue] (so a Reflector can write to it), not the consumer's: Pop hands
// out objects, not [Deltas].
//
// client-go: tools/cache.FIFO.
type FIFO struct {
	keyFunc indexer.KeyFunc

	// synced mirrors populated && initialPopulationCount == 0, so HasSynced
	// answers at once even while a Pop holds mu.
	synced atomic.Bool

	cond *sync.Cond // wakes Pop when queue grows or the FIFO closes; its L is &mu

	mu sync.Mutex // guards everything below
	// Invariants (checkInvariants verifies them):
	//   - queue and items hold exactly the same keys, and queue has no duplicates;
	//   - outside Pop, 0 <= initialPopulationCount <= len(queue), and the
	//     initial keys are the first ones in queue;
	//   - !populated implies initialPopulationCount == 0;
	//   - synced == populated && initialPopulationCount == 0.
	items                  map[string]any // key -> the newest object
	queue                  keyQueue       // keys in the order they first arrived
	populated              bool           // a Replace, Add, Update or Delete has happened
	initialPopulationCount int            // keys of the initial list not yet processed
	closed                 bool
}

// NewFIFO returns an empty FIFO that keys objects with keyFunc
// (indexer.MetaNamespaceKeyFunc if nil). It starts no goroutine.
func NewFIFO(keyFunc indexer.KeyFunc) *FIFO {
	if keyFunc == nil {
		keyFunc = indexer.MetaNamespaceKeyFunc
	}
	f := &FIFO{keyFunc: keyFunc, items: map[string]any{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// Add stores obj under its key. A new key joins the end of the line; a key
// already waiting keeps its place and now holds obj instead of the object it
// held.
func (f *FIFO) Add(obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return fmt.Errorf("deltafifo: fifo add: %w", err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if _, queued := f.items[key]; !queued {
		f.queue.push(key)
	}
	// Step 2 (add object): only the newest state is kept.
	f.items[key] = obj
	f.markPopulatedLocked()
	f.cond.Broadcast()
	return nil
}

// Update is Add: the FIFO does not tell an update from an addition.
func (f *FIFO) Update(obj any) error {
	return f.Add(obj)
}

// Delete takes the object with obj's key out of the line, if it is there.
// Nothing is queued in its place: the consumer never learns of the
// deletion.
func (f *FIFO) Delete(obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return fmt.Errorf("deltafifo: fifo delete: %w", err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if _, queued := f.items[key]; queued {
		delete(f.items, key)
		if at := f.queue.remove(key); at < f.initialPopulationCount {
			// One initial key fewer to deliver before HasSynced.
			f.initialPopulationCount--
		}
	}
	f.markPopulatedLocked()
	return nil
}

// Replace makes list the whole contents of the FIFO, in list order: every
// waiting object the list lacks is dropped without a trace, and when a key
// is listed twice the later object wins. It is all or nothing: if any object
// cannot be keyed, it returns the error and changes nothing.
//
// The first Replace before any Add, Update or Delete is the initial list:
// HasSynced stays false until every key of it has been processed. A Replace
// that comes while the initial list is still being delivered becomes the
// initial list in its place. resourceVersion is not used.
func (f *FIFO) Replace(list []any, resourceVersion string) error {
	keys := make([]string, len(list))
	for i, obj := range list {
		key, err := f.KeyOf(obj)
		if err != nil {
			return fmt.Errorf("deltafifo: fifo replace: item %d: %w", i, err)
		}
		keys[i] = key
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = make(map[string]any, len(list))
	f.queue = keyQueue{}
	for i, key := range keys {
		if _, listed := f.items[key]; !listed {
			f.queue.push(key)
		}
		// Step 2 (add object): the list is the new contents.
		f.items[key] = list[i]
	}
	if !f.populated || f.initialPopulationCount > 0 {
		f.populated = true
		f.initialPopulationCount = f.queue.len()
	}
	f.updateSyncedLocked()
	f.cond.Broadcast()
	return nil
}

// Resync does nothing: every object the FIFO holds is already queued, and it
// keeps nothing it has handed out.
func (f *FIFO) Resync() error {
	return nil
}

func (f *FIFO) markPopulatedLocked() {
	f.populated = true
	f.updateSyncedLocked()
}

func (f *FIFO) updateSyncedLocked() {
	f.synced.Store(f.populated && f.initialPopulationCount == 0)
}

// Pop blocks until a key is queued, removes the key at the head of the line
// and calls process with its object, the newest one added. It returns that
// object and whatever process returned; nothing is requeued on an error.
// isInInitialList is true for the keys of the initial list. process runs
// with the FIFO locked, so it must be quick and must not call the FIFO
// (HasSynced excepted).
//
// Once the FIFO is closed and empty, Pop returns [ErrFIFOClosed]; Close
// wakes a Pop that is waiting.
func (f *FIFO) Pop(process func(obj any, isInInitialList bool) error) (any, error) {
	if process == nil {
		return nil, errNilProcess
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.queue.len() == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}

	// Step 3 (pop object): the head key leaves with its newest object.
	key := f.queue.pop()
	obj := f.items[key]
	delete(f.items, key)

	isInInitialList := !f.synced.Load()
	if f.initialPopulationCount > 0 {
		// Counted only once process has returned, as DeltaFIFO does.
		defer func() {
			f.initialPopulationCount--
			f.updateSyncedLocked()
		}()
	}
	return obj, process(obj, isInInitialList)
}

// HasSynced reports whether the initial list has been delivered: true once
// every key of it has been popped (or deleted) and processed, or at once if
// Add, Update or Delete came before any Replace. It never waits for the
// lock.
func (f *FIFO) HasSynced() bool {
	return f.synced.Load()
}

// Close marks the FIFO closed and wakes every blocked Pop. Pop keeps
// handing out what is still queued and returns [ErrFIFOClosed] once the
// FIFO is empty. Close is idempotent.
func (f *FIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *FIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// KeyOf returns the key obj is queued under. Failures are
// [indexer.KeyError]s.
func (f *FIFO) KeyOf(obj any) (string, error) {
	key, err := f.keyFunc(obj)
	if err != nil {
		return "", indexer.KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// ListKeys returns the queued keys in the order Pop will take them.
func (f *FIFO) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.queue.queued())
}

// Queued returns the queued objects in the order Pop will take them: one
// per key, the newest. It is for tests and for looking inside the queue
// while learning. The slice is a copy; the objects in it are the queued
// ones, never to be modified.
//
// client-go: none (tools/cache's fifo_test.go reads the private items to
// see the same, through its List and Get).
func (f *FIFO) Queued() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]any, 0, f.queue.len())
	for _, key := range f.queue.queued() {
		out = append(out, f.items[key])
	}
	return out
}
