package deltafifo

import (
	"errors"
	"time"
)

// Slow-consumer warning thresholds: a process function that holds the lock
// longer than this while more than this many keys wait is blocking the producer.
const (
	slowProcessDepth    = 10
	slowProcessDuration = 100 * time.Millisecond
)

var errNilProcess = errors.New("deltafifo: Pop needs a process function")

// Pop blocks until a key is queued, removes the key at the head of the line
// and calls process with all of its Deltas, oldest first. It returns those
// Deltas and whatever process returned. A process error does not requeue
// anything: the consumer owns the Deltas from then on.
//
// isInInitialList is true for the keys of the first Replace. process runs
// with the queue locked, so it may update the store behind KnownObjects
// without a Replace, Resync or Delete seeing it half done; for the same
// reason it must be quick and must not call the queue (HasSynced excepted).
//
// Once the queue is closed and empty, Pop returns [ErrFIFOClosed]; Close
// wakes a Pop that is waiting.
func (f *DeltaFIFO) Pop(process PopProcessFunc) (Deltas, error) {
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

	// Step 3 (pop object): the head key leaves the queue with all its deltas.
	key := f.queue.pop()
	deltas := f.items[key]
	delete(f.items, key)
	f.shrinkItemsLocked()

	isInInitialList := !f.synced.Load()
	if f.initialPopulationCount > 0 {
		// Counted only once process has returned: HasSynced must not turn
		// true while the last initial item is still being handled.
		defer func() {
			f.initialPopulationCount--
			f.updateSyncedLocked()
		}()
	}
	if depth := f.queue.len(); depth > slowProcessDepth {
		defer f.warnIfSlow(key, depth, time.Now())
	}
	return deltas, process(deltas, isInInitialList)
}

func (f *DeltaFIFO) warnIfSlow(key string, depth int, start time.Time) {
	if took := time.Since(start); took > slowProcessDuration {
		f.logger.Warn("deltafifo: slow event handlers blocking the queue",
			"key", key, "depth", depth, "took", took)
	}
}

// shrinkItemsLocked rebuilds items small once it holds a small fraction of
// what it once held (see shrinkAbove): typically when the keys of the
// initial list have all been popped.
func (f *DeltaFIFO) shrinkItemsLocked() {
	if f.itemsPeak <= shrinkAbove || len(f.items) > f.itemsPeak/16 {
		return
	}
	smaller := make(map[string]Deltas, len(f.items))
	for key, deltas := range f.items {
		smaller[key] = deltas
	}
	f.items, f.itemsPeak = smaller, len(smaller)
}
