package workqueue

import (
	"fmt"
	"sync"
	"time"
)

// DelayingInterface is a queue that can also add an item after a delay.
//
// client-go: util/workqueue.TypedDelayingInterface.
type DelayingInterface[T comparable] interface {
	Interface[T]
	// AddAfter adds item once duration has passed; a duration <= 0 adds it now.
	// If item is already waiting for a later time, it now waits for the earlier
	// one; a later AddAfter never postpones an earlier one. AddAfter never blocks
	// for long: it only takes the queue's lock. After ShutDown it does nothing, and
	// items still waiting at ShutDown are dropped.
	AddAfter(item T, duration time.Duration)
}

// NewDelaying returns an empty delaying queue. It starts no goroutine: the first
// AddAfter with a positive delay starts the one waiting loop, and ShutDown (or
// ShutDownWithDrain) stops it and waits for it to return.
func NewDelaying[T comparable](opts ...Option) DelayingInterface[T] {
	return newDelayingQueue[T](buildOptions(opts))
}

// delayingQueue adds a waiting set and its loop in front of a queue: AddAfter puts
// the item in the waiting set; the loop moves it into the queue with Add when its
// time comes, so it collapses with any other add of the same item.
//
// The two locks are never held together: the loop takes mu to pop the ready items
// and releases it before calling Add, which takes the queue's lock.
type delayingQueue[T comparable] struct {
	*queue[T]
	loop *waitingLoop

	mu      sync.Mutex // guards waiting, ready, and loop's started and stopped flags
	waiting waitingSet[T]
	ready   []T // scratch space for flush, reused between turns of the loop
}

func newDelayingQueue[T comparable](o options) *delayingQueue[T] {
	d := &delayingQueue[T]{queue: newQueue[T](o)}
	d.loop = newWaitingLoop(d.flush)
	return d
}

func (d *delayingQueue[T]) AddAfter(item T, duration time.Duration) {
	if duration <= 0 {
		if !d.ShuttingDown() {
			d.metrics.retry()
			d.Add(item)
		}
		return
	}
	readyAt := time.Now().Add(duration)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.loop.stopped { // stopped before the queue shuts down: this is the shutdown check
		return
	}
	d.metrics.retry()
	if d.waiting.add(item, readyAt) {
		d.loop.wakeLocked()
	}
}

// flush is the waiting loop's turn: it moves every item whose time has come into
// the queue and returns the next ready time.
func (d *delayingQueue[T]) flush(now time.Time) (next time.Time, ok bool) {
	d.mu.Lock()
	d.ready = d.waiting.popReady(now, d.ready[:0])
	ready := d.ready
	next, ok = d.waiting.next()
	d.mu.Unlock()

	for _, item := range ready {
		d.Add(item)
	}
	clear(ready) // only this goroutine touches d.ready's contents between turns
	return next, ok
}

// ShutDown drops every waiting item, stops the waiting loop and waits for it to
// return, then shuts the queue down.
func (d *delayingQueue[T]) ShutDown() {
	d.stopWaiting()
	d.queue.ShutDown()
}

// ShutDownWithDrain drops every waiting item, stops the waiting loop and waits for
// it to return, then drains the queue: it returns once nothing is queued and nothing
// is in flight. Items still waiting for their delay are not waited for.
func (d *delayingQueue[T]) ShutDownWithDrain() {
	d.stopWaiting()
	d.queue.ShutDownWithDrain()
}

func (d *delayingQueue[T]) stopWaiting() {
	d.mu.Lock()
	d.waiting.clear()
	loopDone := d.loop.haltLocked()
	d.mu.Unlock()
	<-loopDone
}

func (d *delayingQueue[T]) checkInvariants() error {
	d.mu.Lock()
	err := d.waiting.checkInvariants()
	if err == nil && d.loop.stopped && d.waiting.len() > 0 {
		err = fmt.Errorf("workqueue: %d items wait in a stopped delaying queue", d.waiting.len())
	}
	d.mu.Unlock()
	if err != nil {
		return err
	}
	return d.queue.checkInvariants()
}
