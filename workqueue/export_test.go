package workqueue

import "fmt"

// CheckInvariants checks the invariants of any queue this package builds, so tests
// in package workqueue_test can call it after every step.
func CheckInvariants[T comparable](q Interface[T]) error {
	c, ok := q.(interface{ checkInvariants() error })
	if !ok {
		return fmt.Errorf("workqueue: CheckInvariants does not know %T", q)
	}
	return c.checkInvariants()
}

// waiter is what every queue with a waiting set has.
type waiter interface {
	waitingLoop() *waitingLoop
	waitingLen() int
}

// WaitingLoopWakeups returns how many times the queue's waiting loop woke up after
// its first turn (a kick for a new earliest item, or its timer).
func WaitingLoopWakeups[T comparable](q DelayingInterface[T]) int64 {
	return q.(waiter).waitingLoop().wakeups.Load()
}

// WaitingLen returns how many items wait for their delay to pass.
func WaitingLen[T comparable](q DelayingInterface[T]) int {
	return q.(waiter).waitingLen()
}

func (d *delayingQueue[T]) waitingLoop() *waitingLoop { return d.loop }

func (d *delayingQueue[T]) waitingLen() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.waiting.len()
}

func (q *priorityQueue[T]) waitingLoop() *waitingLoop { return q.loop }

func (q *priorityQueue[T]) waitingLen() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting.len()
}

// EmptyWaiting drops every waiting item but keeps the waiting set's memory, as in a
// long-lived queue whose items have all come due. Benchmarks use it to measure
// AddAfter in that steady state.
func EmptyWaiting[T comparable](q DelayingInterface[T]) {
	d := q.(*delayingQueue[T])
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.waiting.byItem)
	clear(d.waiting.heap)
	d.waiting.heap = d.waiting.heap[:0]
}
