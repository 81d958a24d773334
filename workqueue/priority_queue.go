package workqueue

import (
	"container/heap"
	"fmt"
	"sync"
	"time"
)

// AddOpts says how [PriorityQueue.AddWithOpts] adds its items.
//
// client-go: controller-runtime pkg/controller/priorityqueue.AddOpts.
type AddOpts struct {
	// After delays the items; zero or negative means now.
	After time.Duration
	// RateLimited also asks the queue's rate limiter for a delay (counting a
	// failure); the shorter of that delay and a positive After wins.
	RateLimited bool
	// Priority of the items: higher is handed out first. Nil means 0.
	Priority *int
}

// PriorityQueue is a rate-limiting queue whose items carry a priority. Get hands out
// the ready item with the highest priority, oldest first within one priority.
//
// Adding an item that is already in the queue merges the two adds, keeping the best
// of both: the higher priority and the earlier ready time (an item that is ready
// stays ready even if added again with a delay). Raising a ready item's priority
// moves it to the back of its new priority level; an item whose delay has passed
// joins the back of its level at that moment.
//
// Like every queue here, an item is never handed to two workers at once: an item
// added while it is processed waits, keeping its place, until Done.
//
// Starvation: there is no aging. As long as higher-priority items keep arriving at
// least as fast as workers take them, a lower-priority item is never handed out.
//
// client-go: controller-runtime pkg/controller/priorityqueue.PriorityQueue.
type PriorityQueue[T comparable] interface {
	RateLimitingInterface[T]
	// AddWithOpts adds items with the given delay, rate limiting and priority.
	AddWithOpts(o AddOpts, items ...T)
	// GetWithPriority is Get that also returns the priority the item had.
	GetWithPriority() (item T, priority int, shutdown bool)
}

// NewPriorityQueue returns an empty priority queue. A nil limiter means
// NewItemExponentialFailureRateLimiter(5ms, 1000s), controller-runtime's default
// for this queue. It starts no goroutine until the first delayed add; ShutDown stops
// it.
func NewPriorityQueue[T comparable](limiter RateLimiter[T], opts ...Option) PriorityQueue[T] {
	if limiter == nil {
		limiter = NewItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
	}
	q := &priorityQueue[T]{
		limiter:    limiter,
		metrics:    newQueueMetrics[T](buildOptions(opts)),
		items:      make(map[T]*priorityEntry[T]),
		processing: make(map[T]struct{}),
	}
	q.cond.L = &q.mu
	q.idle.L = &q.mu
	q.loop = newWaitingLoop(q.flush)
	return q
}

// priorityQueue is the implementation of PriorityQueue.
//
// Invariants (checked by checkInvariants):
//   - items holds every item added and not yet handed out, processing every item
//     handed out and not yet Done; an item added while processing is in both;
//   - an entry is waiting exactly when its item is in the waiting set;
//   - a ready entry is in the ready heap exactly when its item is not processing
//     (otherwise it is parked until Done); ready is a heap on (priority desc, seq);
//   - after shutdown nothing waits.
type priorityQueue[T comparable] struct {
	limiter RateLimiter[T]
	metrics *queueMetrics[T] // nil without a MetricsProvider
	loop    *waitingLoop

	mu           sync.Mutex // guards the fields below and loop's flags; cond and idle wait on it
	cond         sync.Cond  // signalled when ready gains an entry, broadcast at shutdown
	idle         sync.Cond  // broadcast when a drained queue becomes idle or a drain is cancelled
	items        map[T]*priorityEntry[T]
	entries      recycler[priorityEntry[T]] // entries of items handed out, for the next adds
	ready        readyHeap[T]
	waiting      waitingSet[T]
	processing   map[T]struct{}
	nextSeq      uint64
	due          []T // scratch space for flush
	shuttingDown bool
	drainWaiters int
	cancels      int
}

func (q *priorityQueue[T]) Add(item T) { q.AddWithOpts(AddOpts{}, item) }

func (q *priorityQueue[T]) AddAfter(item T, after time.Duration) {
	q.AddWithOpts(AddOpts{After: after}, item)
}

func (q *priorityQueue[T]) AddRateLimited(item T) { q.AddWithOpts(AddOpts{RateLimited: true}, item) }

func (q *priorityQueue[T]) Forget(item T) { q.limiter.Forget(item) }

func (q *priorityQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

func (q *priorityQueue[T]) AddWithOpts(o AddOpts, items ...T) {
	priority := 0
	if o.Priority != nil {
		priority = *o.Priority
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	var now time.Time
	for _, item := range items {
		after := o.After
		if o.RateLimited {
			if d := q.limiter.When(item); after <= 0 || d < after {
				after = d
			}
		}
		if after <= 0 {
			q.addReadyLocked(item, priority)
			continue
		}
		q.metrics.retry()
		if now.IsZero() {
			now = time.Now()
		}
		q.addWaitingLocked(item, priority, now.Add(after))
	}
}

func (q *priorityQueue[T]) addReadyLocked(item T, priority int) {
	e, ok := q.items[item]
	if !ok {
		e = q.newEntryLocked(item, priority)
		q.items[item] = e
		q.makeReadyLocked(e)
		return
	}
	q.raiseLocked(e, priority)
	if e.waiting { // an add now beats any delay
		q.waiting.remove(item)
		q.makeReadyLocked(e)
	}
}

func (q *priorityQueue[T]) addWaitingLocked(item T, priority int, readyAt time.Time) {
	e, ok := q.items[item]
	if !ok {
		e = q.newEntryLocked(item, priority)
		e.waiting = true
		q.items[item] = e
	} else {
		q.raiseLocked(e, priority)
		if !e.waiting {
			return // already ready: a delay never makes it wait
		}
	}
	if q.waiting.add(item, readyAt) {
		q.loop.wakeLocked()
	}
}

// newEntryLocked returns a new entry for item, outside the ready heap.
func (q *priorityQueue[T]) newEntryLocked(item T, priority int) *priorityEntry[T] {
	e := q.entries.get()
	e.item, e.priority, e.index = item, priority, -1
	return e
}

// raiseLocked gives e the higher of its priority and priority. A ready entry whose
// priority rises goes to the back of its new level.
func (q *priorityQueue[T]) raiseLocked(e *priorityEntry[T], priority int) {
	if priority <= e.priority {
		return
	}
	e.priority = priority
	if e.waiting {
		return // it takes its place in the level when it becomes ready
	}
	e.seq = q.takeSeqLocked()
	if e.index >= 0 {
		heap.Fix(&q.ready, e.index)
	}
}

// makeReadyLocked moves e to the back of its priority level, in the ready heap
// unless its item is being processed (then Done puts it there).
func (q *priorityQueue[T]) makeReadyLocked(e *priorityEntry[T]) {
	e.waiting = false
	e.seq = q.takeSeqLocked()
	q.metrics.add(e.item)
	if _, busy := q.processing[e.item]; busy {
		return
	}
	heap.Push(&q.ready, e)
	q.cond.Signal()
}

func (q *priorityQueue[T]) takeSeqLocked() uint64 {
	q.nextSeq++
	return q.nextSeq
}

// flush is the waiting loop's turn: it makes every item whose time has come ready
// and returns the next ready time.
func (q *priorityQueue[T]) flush(now time.Time) (time.Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.due = q.waiting.popReady(now, q.due[:0])
	for _, item := range q.due {
		q.makeReadyLocked(q.items[item])
	}
	clear(q.due)
	return q.waiting.next()
}

func (q *priorityQueue[T]) Get() (item T, shutdown bool) {
	item, _, shutdown = q.GetWithPriority()
	return item, shutdown
}

func (q *priorityQueue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ready.Len() == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if q.ready.Len() == 0 {
		return item, 0, true
	}
	e := heap.Pop(&q.ready).(*priorityEntry[T])
	item, priority = e.item, e.priority
	delete(q.items, item)
	q.entries.put(e) // nothing refers to it any more
	q.processing[item] = struct{}{}
	q.metrics.get(item)
	return item, priority, false
}

func (q *priorityQueue[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.processing[item]; !ok {
		return // not handed out: nothing to finish
	}
	delete(q.processing, item)
	q.metrics.done(item)
	if e, ok := q.items[item]; ok && !e.waiting {
		heap.Push(&q.ready, e) // parked while processing, with the place it had earned
		q.cond.Signal()
	}
	if q.drainWaiters > 0 && q.idleLocked() {
		q.idle.Broadcast()
	}
}

// Len returns how many items are ready to be handed out: neither waiting for their
// delay nor parked behind a worker that is still processing them.
func (q *priorityQueue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready.Len()
}

func (q *priorityQueue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// ShutDown drops waiting items, stops the waiting loop and waits for it; ready
// items are still handed out, as by every queue here (controller-runtime's
// priority queue reports shutdown at once instead).
func (q *priorityQueue[T]) ShutDown() {
	q.mu.Lock()
	loopDone := q.shutDownLocked()
	q.cancels++
	q.idle.Broadcast()
	q.mu.Unlock()
	<-loopDone
	q.metrics.stop()
}

// ShutDownWithDrain is ShutDown, then waits until nothing is ready and nothing is
// being processed (controller-runtime's priority queue does not drain).
func (q *priorityQueue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	loopDone := q.shutDownLocked()
	q.mu.Unlock()
	<-loopDone

	q.mu.Lock()
	q.drainWaiters++
	for cancels := q.cancels; cancels == q.cancels && !q.idleLocked(); {
		q.idle.Wait()
	}
	q.drainWaiters--
	q.mu.Unlock()
	q.metrics.stop()
}

func (q *priorityQueue[T]) shutDownLocked() (loopDone <-chan struct{}) {
	q.shuttingDown = true
	for _, e := range q.waiting.heap {
		delete(q.items, e.item)
	}
	q.waiting.clear()
	q.cond.Broadcast()
	return q.loop.haltLocked()
}

func (q *priorityQueue[T]) idleLocked() bool {
	return q.ready.Len() == 0 && len(q.processing) == 0
}

func (q *priorityQueue[T]) checkInvariants() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.waiting.checkInvariants(); err != nil {
		return err
	}
	waiting := 0
	seqs := make(map[uint64]T, len(q.items))
	for item, e := range q.items {
		_, inWaiting := q.waiting.byItem[item]
		_, busy := q.processing[item]
		switch {
		case e.item != item:
			return fmt.Errorf("workqueue: entry for %v holds %v", item, e.item)
		case e.waiting != inWaiting:
			return fmt.Errorf("workqueue: %v waiting=%t but in waiting set=%t", item, e.waiting, inWaiting)
		case e.waiting && e.index != -1:
			return fmt.Errorf("workqueue: waiting %v is in the ready heap", item)
		case !e.waiting && busy && e.index != -1:
			return fmt.Errorf("workqueue: %v is ready while being processed", item)
		case !e.waiting && !busy && (e.index < 0 || e.index >= len(q.ready) || q.ready[e.index] != e):
			return fmt.Errorf("workqueue: ready %v is not in the ready heap", item)
		}
		if e.waiting {
			waiting++
			continue
		}
		if other, dup := seqs[e.seq]; dup || e.seq == 0 || e.seq > q.nextSeq {
			return fmt.Errorf("workqueue: %v has seq %d (also held by %v: %t)", item, e.seq, other, dup)
		}
		seqs[e.seq] = item
	}
	if waiting != q.waiting.len() {
		return fmt.Errorf("workqueue: %d entries waiting but %d in the waiting set", waiting, q.waiting.len())
	}
	for i, e := range q.ready {
		if e.index != i || q.items[e.item] != e {
			return fmt.Errorf("workqueue: ready heap slot %d holds a stale entry for %v", i, e.item)
		}
		if parent := (i - 1) / 2; i > 0 && q.ready.Less(i, parent) {
			return fmt.Errorf("workqueue: ready heap order broken at %d", i)
		}
	}
	if q.shuttingDown && q.waiting.len() > 0 {
		return fmt.Errorf("workqueue: %d items wait in a shut down queue", q.waiting.len())
	}
	return nil
}
