package workqueuelab

import (
	"time"

	"github.com/informerlab/informerlab/labs/grade"
)

// Queue is a delaying work queue: fair, stingy, one worker per item. Every
// method may be called from many goroutines at once.
type Queue[T comparable] struct {
	// Your fields here: a lock and a condition variable, the line of
	// waiting items, the set of items waiting (dirty), the set being
	// processed, the shutdown flags, and what AddAfter needs.
}

// New returns an empty queue.
func New[T comparable]() *Queue[T] {
	panic(grade.NotImplemented("New"))
}

// Add marks item as needing processing. If it is already waiting, Add does
// nothing. If it is being processed, it is queued again when its worker
// calls Done. After ShutDown, Add does nothing.
func (q *Queue[T]) Add(item T) {
	panic(grade.NotImplemented("Queue.Add"))
}

// Len returns how many items are waiting (not those being processed).
func (q *Queue[T]) Len() int {
	panic(grade.NotImplemented("Queue.Len"))
}

// Get blocks until an item is waiting and hands out the oldest; the caller
// owns it until Done. Once the queue is shut down and nothing is waiting,
// it returns the zero value and shutdown == true.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	panic(grade.NotImplemented("Queue.Get"))
}

// Done says processing of item is finished; if it was added again in the
// meantime, it goes back in line, and a Get blocked on the empty queue
// wakes to take it. Done of an item not being processed (unknown, or
// waiting and not handed out) does nothing.
func (q *Queue[T]) Done(item T) {
	panic(grade.NotImplemented("Queue.Done"))
}

// ShutDown stops accepting items and wakes every blocked Get. Items
// already waiting are still handed out. Items waiting for an AddAfter
// delay are dropped, and any goroutine the queue started must end.
func (q *Queue[T]) ShutDown() {
	panic(grade.NotImplemented("Queue.ShutDown"))
}

// ShutDownWithDrain does what ShutDown does, then blocks until nothing is
// waiting and nothing is being processed: it waits for the items still in
// line too, so workers must keep calling Get and Done. A ShutDown while it
// waits cancels the drain, and ShutDownWithDrain returns at once.
func (q *Queue[T]) ShutDownWithDrain() {
	panic(grade.NotImplemented("Queue.ShutDownWithDrain"))
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool {
	panic(grade.NotImplemented("Queue.ShuttingDown"))
}

// AddAfter adds item once duration has passed; duration <= 0 adds it now.
// If item already waits for a later time, it now waits for the earlier
// one. AddAfter must not block.
func (q *Queue[T]) AddAfter(item T, duration time.Duration) {
	panic(grade.NotImplemented("Queue.AddAfter"))
}
