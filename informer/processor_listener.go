package informer

import (
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// notificationKind says which ResourceEventHandler method a notification calls.
type notificationKind uint8

const (
	addNotification notificationKind = iota + 1
	updateNotification
	deleteNotification
)

// notification is one pending call of a handler method.
type notification struct {
	kind            notificationKind
	oldObj          any // update: the cached object before; delete: the object or tombstone
	newObj          any // add and update: the object now
	isInInitialList bool
}

// processorListener delivers notifications to one handler (diagram step 6),
// on its own goroutine, from an unbounded buffer: add never blocks, so the
// informer hands a notification to every listener and moves on, and a slow
// or stuck handler delays nobody but itself. The price is memory: the buffer
// of a stuck handler grows without limit (Backlog shows how far behind it is).
//
// A handler that panics does not take the informer down: the panic is
// recovered, logged with its stack, counted (Panics), and the next
// notification is delivered. client-go instead re-panics by default
// (utilruntime.HandleCrash), ending the process.
//
// processorListener is the ResourceEventHandlerRegistration returned by
// AddEventHandler. It is safe for concurrent use.
//
// client-go: tools/cache.processorListener.
type processorListener struct {
	handler ResourceEventHandler
	logger  *slog.Logger
	sync    *syncTracker
	panics  atomic.Int64
	exited  chan struct{} // closed when run returns
	// started is set once the processor has started run's goroutine for
	// this listener (under the processor's lock), so ShutDownEventHandler
	// knows whether exited will ever close.
	started atomic.Bool
	// owner is the processor the listener was registered with.
	owner   *sharedProcessor
	metrics *handlerMetrics // nil: no metrics; set before the listener is registered

	// requestedResyncPeriod is what the handler asked for (0: never; raised
	// to minimumResyncPeriod); resyncPeriod is what it gets once the
	// informer's resync check period is taken into account; nextResync is
	// when it is next due. All three are written only by the sharedProcessor
	// under its mu, or before the listener is registered.
	requestedResyncPeriod time.Duration
	resyncPeriod          time.Duration
	nextResync            time.Time

	cond *sync.Cond // signals run when pending grows or stopped is set; its L is &mu

	mu sync.Mutex // guards the fields below
	// Invariant: stopped implies pending is empty.
	pending ringBuffer[notification]
	stopped bool
}

// initialBufferSize is the listener buffer's first allocation; it doubles as needed.
const initialBufferSize = 64

func newProcessorListener(h ResourceEventHandler, requested, effective time.Duration, now time.Time, logger *slog.Logger) *processorListener {
	l := &processorListener{
		handler:               h,
		logger:                logger,
		sync:                  newSyncTracker(),
		exited:                make(chan struct{}),
		requestedResyncPeriod: requested,
		resyncPeriod:          effective,
		pending:               newRingBuffer[notification](initialBufferSize),
	}
	l.cond = sync.NewCond(&l.mu)
	l.determineNextResync(now)
	return l
}

// add queues n for the handler. It never blocks. After stop it does nothing.
func (l *processorListener) add(n notification) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	if n.kind == addNotification && n.isInInitialList {
		l.sync.start()
	}
	l.pending.WriteOne(n)
	l.metrics.setBacklog(l.pending.Len())
	l.cond.Signal()
}

// run delivers notifications one at a time, in order, until stop. It is the
// listener's goroutine; the sharedProcessor starts it.
func (l *processorListener) run() {
	defer close(l.exited)
	for {
		l.mu.Lock()
		for l.pending.Len() == 0 && !l.stopped {
			l.cond.Wait()
		}
		if l.stopped {
			l.mu.Unlock()
			return
		}
		n, _ := l.pending.ReadOne()
		l.metrics.setBacklog(l.pending.Len())
		l.mu.Unlock()

		l.deliver(n)
	}
}

// deliver calls the handler for one notification, recovering a panic.
func (l *processorListener) deliver(n notification) {
	if n.kind == addNotification && n.isInInitialList {
		// Even a handler that panicked is done with this item.
		defer l.sync.finished()
	}
	defer func() {
		if r := recover(); r != nil {
			l.panics.Add(1)
			l.metrics.panicked()
			l.logger.Error("informer: event handler panicked; the notification is dropped",
				"panic", r, "stack", string(debug.Stack()))
		}
	}()
	// Step 6 (dispatch event handler): the handler finally sees the change.
	l.metrics.event()
	switch n.kind {
	case addNotification:
		l.handler.OnAdd(n.newObj, n.isInInitialList)
	case updateNotification:
		l.handler.OnUpdate(n.oldObj, n.newObj)
	case deleteNotification:
		l.handler.OnDelete(n.oldObj)
	}
}

// stop makes run return after the notification it is delivering, if any;
// everything still buffered is dropped. Idempotent.
func (l *processorListener) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	l.pending.Reset()
	l.metrics.setBacklog(0)
	l.cond.Broadcast()
}

// shouldResync reports whether the listener is due a resync at now.
func (l *processorListener) shouldResync(now time.Time) bool {
	return l.resyncPeriod != 0 && !now.Before(l.nextResync)
}

func (l *processorListener) determineNextResync(now time.Time) {
	l.nextResync = now.Add(l.resyncPeriod)
}

// HasSynced reports whether the informer has synced and this handler has
// returned from every OnAdd of the initial list. It never reverts to false.
func (l *processorListener) HasSynced() bool { return l.sync.hasSynced() }

// Done returns a channel that is closed once HasSynced is true.
func (l *processorListener) Done() <-chan struct{} { return l.sync.done }

// Name names the handler: "handler" and its type, or the functions it holds.
func (l *processorListener) Name() string { return "handler " + nameForHandler(l.handler) }

// HasSyncedChecker returns l.
func (l *processorListener) HasSyncedChecker() DoneChecker { return l }

// Backlog returns how many notifications wait in this handler's buffer, not
// counting the one being handled.
func (l *processorListener) Backlog() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending.Len()
}

// Panics returns how many notifications this handler panicked on.
func (l *processorListener) Panics() int64 { return l.panics.Load() }

func (l *processorListener) checkInvariants() error {
	l.mu.Lock()
	stopped, n := l.stopped, l.pending.Len()
	l.mu.Unlock()
	if stopped && n != 0 {
		return errorf("listener: stopped with %d pending notifications", n)
	}
	return l.sync.checkInvariants()
}
