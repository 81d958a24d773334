package workqueue

import "fmt"

// CheckInvariants checks the invariants of any queue this package builds, so tests
// in package workqueue_test can call it after every step.
func CheckInvariants[T comparable](q Interface[T]) error {
	switch q := q.(type) {
	case *queue[T]:
		return q.checkInvariants()
	case *delayingQueue[T]:
		return q.checkInvariants()
	}
	return fmt.Errorf("workqueue: CheckInvariants does not know %T", q)
}

// WaitingLoopWakeups returns how many times the delaying queue's waiting loop woke
// up after its first turn (a kick for a new earliest item, or its timer).
func WaitingLoopWakeups[T comparable](q DelayingInterface[T]) int64 {
	return waitingLoopOf(q).wakeups.Load()
}

// WaitingLen returns how many items wait for their delay to pass.
func WaitingLen[T comparable](q DelayingInterface[T]) int {
	switch q := q.(type) {
	case *delayingQueue[T]:
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.waiting.len()
	}
	panic(fmt.Sprintf("workqueue: WaitingLen does not know %T", q))
}

func waitingLoopOf[T comparable](q DelayingInterface[T]) *waitingLoop {
	switch q := q.(type) {
	case *delayingQueue[T]:
		return q.loop
	}
	panic(fmt.Sprintf("workqueue: no waiting loop in %T", q))
}
