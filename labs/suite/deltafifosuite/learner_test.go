package deltafifosuite_test

import (
	"sync"
	"sync/atomic"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// fifo is a DeltaFIFO as a learner writes it for labs/4-deltafifo from the
// README's hints: a map, a slice of keys, a sync.Cond. With every switch
// off it passes the suite, which shows that the suite asks for nothing
// only informerlab's own queue does. Each switch is one mistake of the
// catalogue in mutants_test.go.
type fifo struct {
	keyFunc indexer.KeyFunc
	known   deltafifo.KeyListerGetter
	m       mistakes

	// synced is popular && initial == 0, stored under mu and read
	// without it: HasSynced is called inside process.
	synced atomic.Bool

	mu      sync.Mutex // guards everything below
	cond    *sync.Cond
	items   map[string]deltafifo.Deltas
	queue   []string
	closed  bool
	popular bool // a Replace, Add, Update or Delete has happened
	initial int  // keys of the first Replace not processed yet
}

// mistakes are the switches of fifo.
type mistakes struct {
	ignoreKnown           bool // the queue is never handed the consumer's store
	replaceAsItGoes       bool // Replace queues each object as it keys it: an error half way leaves half a list
	closeStopsPop         bool // Pop returns ErrFIFOClosed as soon as the queue is closed, queued keys or not
	processUnlocked       bool // Pop releases the lock before calling process
	nestedTombstone       bool // Replace wraps a queued tombstone in another tombstone
	hasSyncedLocks        bool // HasSynced takes the queue's lock
	hasSyncedUnguarded    bool // HasSynced reads the bookkeeping without the lock
	countBeforeProcess    bool // Pop counts an initial key as processed before calling process
	deleteAnything        bool // Delete queues a deletion of an object nobody knows
	noDeleteCollapse      bool // two Deleted deltas in a row are both kept
	keyMovesToTheBack     bool // a key that gets a new delta moves to the back of the line
	replaceSkipsQueued    bool // Replace tombstones known objects only, not queued ones
	resyncBusyKeys        bool // Resync queues Sync for known keys that have deltas queued
	everyReplaceIsInitial bool // every Replace starts a new initial list
	closeWithoutBroadcast bool // Close sets closed but wakes nobody
	hasSyncedCountsDeltas bool // the initial count is the deltas the first Replace queued, not the keys
}

func newFIFO(kf indexer.KeyFunc, known deltafifo.KeyListerGetter, m mistakes) *fifo {
	f := &fifo{keyFunc: kf, known: known, m: m, items: map[string]deltafifo.Deltas{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *fifo) Add(obj any) error    { return f.enqueue(deltafifo.Added, obj) }
func (f *fifo) Update(obj any) error { return f.enqueue(deltafifo.Updated, obj) }
func (f *fifo) Delete(obj any) error { return f.enqueue(deltafifo.Deleted, obj) }

func (f *fifo) enqueue(t deltafifo.DeltaType, obj any) error {
	key, err := f.keyFunc(obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.populatedLocked()
	if t == deltafifo.Deleted && !f.m.deleteAnything && !f.knownLocked(key) {
		return nil
	}
	f.appendLocked(key, deltafifo.Delta{Type: t, Object: obj})
	return nil
}

func (f *fifo) knownLocked(key string) bool {
	if _, ok := f.items[key]; ok {
		return true
	}
	if f.known == nil {
		return false
	}
	_, ok, _ := f.known.GetByKey(key)
	return ok
}

func (f *fifo) appendLocked(key string, d deltafifo.Delta) {
	old, queued := f.items[key]
	if !queued || f.m.keyMovesToTheBack {
		if queued {
			for i, k := range f.queue {
				if k == key {
					f.queue = append(f.queue[:i], f.queue[i+1:]...)
					break
				}
			}
		}
		f.queue = append(f.queue, key)
	}
	deltas := append(old, d)
	if n := len(deltas); !f.m.noDeleteCollapse && n >= 2 && deltas[n-1].Type == deltafifo.Deleted && deltas[n-2].Type == deltafifo.Deleted {
		if _, tomb := deltas[n-2].Object.(deltafifo.DeletedFinalStateUnknown); tomb {
			deltas[n-2] = deltas[n-1]
		}
		deltas = deltas[:n-1]
	}
	f.items[key] = deltas
	f.cond.Broadcast()
}

func (f *fifo) populatedLocked() {
	f.popular = true
	f.synced.Store(f.initial == 0)
}

func (f *fifo) Replace(list []any, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, len(list))
	for i, obj := range list {
		key, err := f.keyFunc(obj)
		if err != nil {
			return err
		}
		keys[i] = key
		if f.m.replaceAsItGoes {
			f.appendLocked(key, deltafifo.Delta{Type: deltafifo.Replaced, Object: obj})
		}
	}
	listed := map[string]bool{}
	for i, key := range keys {
		listed[key] = true
		if !f.m.replaceAsItGoes {
			f.appendLocked(key, deltafifo.Delta{Type: deltafifo.Replaced, Object: list[i]})
		}
	}
	if !f.m.replaceSkipsQueued {
		for _, key := range append([]string(nil), f.queue...) {
			if listed[key] {
				continue
			}
			newest := f.items[key][len(f.items[key])-1].Object
			if tomb, ok := newest.(deltafifo.DeletedFinalStateUnknown); ok && !f.m.nestedTombstone {
				newest = tomb.Obj
			}
			f.appendLocked(key, deltafifo.Delta{Type: deltafifo.Deleted, Object: deltafifo.DeletedFinalStateUnknown{Key: key, Obj: newest}})
		}
	}
	if f.known != nil {
		for _, key := range f.known.ListKeys() {
			if _, queued := f.items[key]; listed[key] || queued {
				continue
			}
			stored, _, _ := f.known.GetByKey(key)
			f.appendLocked(key, deltafifo.Delta{Type: deltafifo.Deleted, Object: deltafifo.DeletedFinalStateUnknown{Key: key, Obj: stored}})
		}
	}
	if !f.popular || f.m.everyReplaceIsInitial {
		f.popular = true
		f.initial = len(f.queue)
		if f.m.hasSyncedCountsDeltas {
			f.initial = 0
			for _, ds := range f.items {
				f.initial += len(ds)
			}
		}
		f.synced.Store(f.initial == 0)
	}
	return nil
}

func (f *fifo) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known == nil {
		return nil
	}
	for _, key := range f.known.ListKeys() {
		if _, queued := f.items[key]; queued && !f.m.resyncBusyKeys {
			continue
		}
		if obj, ok, _ := f.known.GetByKey(key); ok {
			f.appendLocked(key, deltafifo.Delta{Type: deltafifo.Sync, Object: obj})
		}
	}
	return nil
}

func (f *fifo) Pop(process deltafifo.PopProcessFunc) (deltafifo.Deltas, error) {
	f.mu.Lock()
	locked := true
	defer func() {
		if locked {
			f.mu.Unlock()
		}
	}()
	for len(f.queue) == 0 || (f.m.closeStopsPop && f.closed) {
		if f.closed {
			return nil, deltafifo.ErrFIFOClosed
		}
		f.cond.Wait()
	}
	key := f.queue[0]
	f.queue = f.queue[1:]
	deltas := f.items[key]
	delete(f.items, key)
	initial := f.initial > 0
	done := func() {
		if initial {
			f.initial--
			f.synced.Store(f.popular && f.initial == 0)
		}
	}
	if f.m.countBeforeProcess {
		done()
	}
	if f.m.processUnlocked {
		f.mu.Unlock()
		locked = false
	}
	err := process(deltas, initial)
	if !f.m.countBeforeProcess {
		if !locked {
			f.mu.Lock()
			locked = true
		}
		done()
	}
	return deltas, err
}

func (f *fifo) HasSynced() bool {
	if f.m.hasSyncedUnguarded {
		return f.popular && f.initial == 0
	}
	if f.m.hasSyncedLocks {
		f.mu.Lock()
		defer f.mu.Unlock()
	}
	return f.synced.Load()
}

func (f *fifo) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if !f.m.closeWithoutBroadcast {
		f.cond.Broadcast()
	}
}

func (f *fifo) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queue...)
}
