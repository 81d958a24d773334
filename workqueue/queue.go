package workqueue

import (
	"fmt"
	"sync"
)

// Interface is the basic work queue: fair, stingy, safe for concurrent use by any
// number of producers and workers. See the package documentation for its four
// promises.
//
// client-go: util/workqueue.TypedInterface.
type Interface[T comparable] interface {
	// Add marks item as needing processing. If item is already waiting, Add does
	// nothing (adds collapse). If item is being processed, it is queued again when
	// its worker calls Done. After ShutDown, Add does nothing.
	Add(item T)
	// Len returns how many items are waiting to be handed out by Get. Items being
	// processed are not counted, even those added again while processing.
	Len() int
	// Get blocks until an item is waiting, then hands it out; the caller owns it
	// until it calls Done(item). Once the queue is shut down and nothing is waiting,
	// Get returns the zero value and shutdown == true.
	Get() (item T, shutdown bool)
	// Done tells the queue that processing of item is finished. It must be called
	// exactly once for every item Get returned, or that item is never handed out
	// again and ShutDownWithDrain never returns. Done for an item that is not being
	// processed does nothing.
	Done(item T)
	// ShutDown stops the queue accepting items and wakes every blocked Get. Items
	// already waiting are still handed out; then Get reports shutdown. ShutDown
	// does not wait for workers, and cancels any ShutDownWithDrain in progress.
	ShutDown()
	// ShutDownWithDrain does what ShutDown does, then blocks until nothing is
	// waiting and nothing is being processed (or until ShutDown is called). Workers
	// must keep calling Get and Done for it to return.
	ShutDownWithDrain()
	// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
	ShuttingDown() bool
}

// New returns an empty queue. It starts no goroutine (with a [MetricsProvider], one
// refresh goroutine starts at the first Get and ShutDown stops it).
func New[T comparable](opts ...Option) Interface[T] {
	return newQueue[T](buildOptions(opts))
}

// itemState records, for one item, why the queue still knows it.
type itemState uint8

const (
	// dirty: the item was added and has not been handed out since.
	dirty itemState = 1 << iota
	// processing: Get handed the item out and Done has not been called yet.
	processing
)

// queue is the implementation of Interface.
//
// Invariants (checked by checkInvariants):
//   - every value in states is dirty, processing, or both: an item that is neither
//     is forgotten (deleted from states);
//   - order holds exactly the items whose state is dirty and not processing, each
//     once: an item added while processing waits in states until Done queues it;
//   - inFlight is the number of items whose state includes processing.
type queue[T comparable] struct {
	metrics *queueMetrics[T] // nil without a MetricsProvider

	mu           sync.Mutex // guards the fields below; cond and idle wait on it
	cond         sync.Cond  // signalled when order gains an item, broadcast at shutdown
	idle         sync.Cond  // broadcast when a drained queue becomes idle or a drain is cancelled
	order        fifo[T]
	states       map[T]itemState
	inFlight     int
	shuttingDown bool
	drainWaiters int // ShutDownWithDrain calls blocked on idle
	cancels      int // ShutDown calls so far: a change ends every drain wait
}

func newQueue[T comparable](o options) *queue[T] {
	q := &queue[T]{
		metrics: newQueueMetrics[T](o),
		states:  make(map[T]itemState),
	}
	q.cond.L = &q.mu
	q.idle.L = &q.mu
	return q
}

// Add is Step 7 (enqueue key) of the diagram.
func (q *queue[T]) Add(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	s := q.states[item]
	if s&dirty != 0 {
		return // stingy: already waiting, the adds collapse into one
	}
	q.states[item] = s | dirty
	q.metrics.add(item)
	if s&processing != 0 {
		return // Done queues it again once the current worker is finished
	}
	q.order.push(item)
	q.cond.Signal()
}

func (q *queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.order.len()
}

// Get is Step 8 (get key) of the diagram.
func (q *queue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.order.len() == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if q.order.len() == 0 {
		return item, true // shut down and nothing left
	}
	item = q.order.pop()
	q.states[item] = processing // no longer dirty: a new Add must be seen again
	q.inFlight++
	q.metrics.get(item)
	return item, false
}

func (q *queue[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.states[item]
	if s&processing == 0 {
		return // not handed out: a stray Done must not duplicate a waiting item
	}
	q.inFlight--
	q.metrics.done(item)
	if s&dirty != 0 {
		q.states[item] = dirty // added while processing: its turn comes now
		q.order.push(item)
		q.cond.Signal()
	} else {
		delete(q.states, item)
	}
	if q.drainWaiters > 0 && q.idleLocked() {
		q.idle.Broadcast()
	}
}

func (q *queue[T]) ShutDown() {
	q.mu.Lock()
	q.shutDownLocked()
	q.cancels++
	q.idle.Broadcast()
	q.mu.Unlock()
	q.metrics.stop()
}

func (q *queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.shutDownLocked()
	q.drainWaiters++
	for cancels := q.cancels; cancels == q.cancels && !q.idleLocked(); {
		q.idle.Wait()
	}
	q.drainWaiters--
	q.mu.Unlock()
	q.metrics.stop()
}

func (q *queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

func (q *queue[T]) shutDownLocked() {
	q.shuttingDown = true
	q.cond.Broadcast()
}

// idleLocked reports whether nothing is waiting and nothing is being processed.
func (q *queue[T]) idleLocked() bool {
	return q.order.len() == 0 && q.inFlight == 0
}

// checkInvariants returns an error describing the first broken invariant, if any.
func (q *queue[T]) checkInvariants() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued := make(map[T]bool, q.order.len())
	for i := range q.order.len() {
		item := q.order.at(i)
		if queued[item] {
			return fmt.Errorf("workqueue: %v is queued twice", item)
		}
		queued[item] = true
		if q.states[item] != dirty {
			return fmt.Errorf("workqueue: %v is queued but its state is %b, want dirty only", item, q.states[item])
		}
	}
	inFlight := 0
	for item, s := range q.states {
		switch {
		case s == 0 || s&^(dirty|processing) != 0:
			return fmt.Errorf("workqueue: %v has state %b", item, s)
		case s == dirty && !queued[item]:
			return fmt.Errorf("workqueue: %v is dirty and idle but not queued", item)
		case s&processing != 0:
			inFlight++
		}
	}
	if inFlight != q.inFlight {
		return fmt.Errorf("workqueue: inFlight is %d, but %d items are processing", q.inFlight, inFlight)
	}
	return nil
}
