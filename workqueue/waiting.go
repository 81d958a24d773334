package workqueue

import (
	"container/heap"
	"fmt"
	"sync/atomic"
	"time"
)

// waitingSet holds items that become ready at a future time: a min-heap on ready
// time, plus an index from item to its entry so that each item waits at most once.
// Adding an item that already waits keeps the earlier of the two ready times: a
// delayed add never postpones an earlier one. Not safe for concurrent use; its owner
// guards it.
//
// Invariants (checkInvariants): heap is a min-heap on readyAt; heap[i].index == i;
// byItem maps every entry's item to that entry and holds nothing else.
type waitingSet[T comparable] struct {
	heap    waitHeap[T]
	byItem  map[T]*waitEntry[T]
	entries recycler[waitEntry[T]] // entries of items that left, for the next adds
}

type waitEntry[T comparable] struct {
	item    T
	readyAt time.Time
	index   int // position in the heap
}

// add makes item ready at readyAt, or earlier if it already waits for an earlier
// time. It reports whether the earliest ready time of the set changed, which is
// when the waiting loop must be woken to re-arm its timer.
func (w *waitingSet[T]) add(item T, readyAt time.Time) (earliestChanged bool) {
	if e, ok := w.byItem[item]; ok {
		if !readyAt.Before(e.readyAt) {
			return false
		}
		e.readyAt = readyAt
		heap.Fix(&w.heap, e.index)
		return e.index == 0
	}
	if w.byItem == nil {
		w.byItem = make(map[T]*waitEntry[T])
	}
	e := w.entries.get()
	e.item, e.readyAt = item, readyAt
	w.byItem[item] = e
	heap.Push(&w.heap, e)
	return e.index == 0
}

// remove drops item if it waits, and reports whether it did.
func (w *waitingSet[T]) remove(item T) bool {
	e, ok := w.byItem[item]
	if !ok {
		return false
	}
	heap.Remove(&w.heap, e.index)
	delete(w.byItem, item)
	w.entries.put(e)
	return true
}

// popReady removes every item whose ready time is at or before now and appends
// them to ready, earliest first.
func (w *waitingSet[T]) popReady(now time.Time, ready []T) []T {
	for len(w.heap) > 0 && !w.heap[0].readyAt.After(now) {
		e := heap.Pop(&w.heap).(*waitEntry[T])
		delete(w.byItem, e.item)
		ready = append(ready, e.item)
		w.entries.put(e)
	}
	return ready
}

// next returns the earliest ready time, if anything waits.
func (w *waitingSet[T]) next() (time.Time, bool) {
	if len(w.heap) == 0 {
		return time.Time{}, false
	}
	return w.heap[0].readyAt, true
}

func (w *waitingSet[T]) len() int { return len(w.heap) }

// clear drops every waiting item.
func (w *waitingSet[T]) clear() {
	w.heap, w.byItem, w.entries = nil, nil, recycler[waitEntry[T]]{}
}

func (w *waitingSet[T]) checkInvariants() error {
	if len(w.heap) != len(w.byItem) {
		return fmt.Errorf("workqueue: %d waiting entries but %d indexed", len(w.heap), len(w.byItem))
	}
	for i, e := range w.heap {
		if e.index != i {
			return fmt.Errorf("workqueue: waiting entry %v at %d records index %d", e.item, i, e.index)
		}
		if w.byItem[e.item] != e {
			return fmt.Errorf("workqueue: waiting entry %v is not indexed", e.item)
		}
		if parent := (i - 1) / 2; i > 0 && w.heap[parent].readyAt.After(e.readyAt) {
			return fmt.Errorf("workqueue: waiting heap order broken at %d", i)
		}
	}
	return nil
}

// waitHeap implements heap.Interface, earliest readyAt first.
type waitHeap[T comparable] []*waitEntry[T]

func (h waitHeap[T]) Len() int           { return len(h) }
func (h waitHeap[T]) Less(i, j int) bool { return h[i].readyAt.Before(h[j].readyAt) }
func (h waitHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *waitHeap[T]) Push(x any) {
	e := x.(*waitEntry[T])
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *waitHeap[T]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// waitingLoop is the one goroutine behind delayed adds. It is started lazily, by the
// first delayed add, and stopped by the queue's shutdown.
//
// Each turn it calls flush, which moves every item whose time has come into the
// queue and returns the next ready time; then it sleeps on a timer set for exactly
// that time. It also wakes when kicked, which the owner does when a new earliest
// ready time arrives. There is no heartbeat: with nothing waiting, it sleeps until
// kicked or stopped. A kick never blocks (the channel has room for one pending kick,
// and a second kick while one is pending is redundant).
//
// The started and stopped flags are guarded by the owner's mutex: wakeLocked and
// haltLocked must be called with it held, and flush must take it itself.
type waitingLoop struct {
	flush   func(now time.Time) (next time.Time, ok bool)
	kick    chan struct{} // capacity 1
	stop    chan struct{} // closed by haltLocked
	done    chan struct{} // closed when run returns
	wakeups atomic.Int64  // turns after the first; tests read it
	started bool
	stopped bool
}

func newWaitingLoop(flush func(now time.Time) (time.Time, bool)) *waitingLoop {
	return &waitingLoop{
		flush: flush,
		kick:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
}

// wakeLocked starts the loop if it is not running yet, or kicks it so it re-reads
// the earliest ready time. It does nothing once the loop is halted.
func (l *waitingLoop) wakeLocked() {
	switch {
	case l.stopped:
	case !l.started:
		l.started = true
		go l.run()
	default:
		select {
		case l.kick <- struct{}{}:
		default: // a kick is already pending; the loop will see the new time too
		}
	}
}

// haltLocked stops the loop. It returns a channel that is closed once the loop's
// goroutine has returned; the caller waits on it after releasing the mutex.
func (l *waitingLoop) haltLocked() <-chan struct{} {
	if !l.stopped {
		l.stopped = true
		close(l.stop)
		if !l.started {
			close(l.done) // never started: nothing to wait for
		}
	}
	return l.done
}

func (l *waitingLoop) run() {
	defer close(l.done)
	timer := time.NewTimer(time.Hour) // re-armed or stopped before every wait
	defer timer.Stop()
	for {
		next, ok := l.flush(time.Now())
		var ready <-chan time.Time
		if ok {
			timer.Reset(time.Until(next))
			ready = timer.C
		} else {
			timer.Stop()
		}
		select {
		case <-l.stop:
			return
		case <-l.kick:
		case <-ready:
		}
		l.wakeups.Add(1)
	}
}
