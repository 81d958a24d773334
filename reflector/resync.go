package reflector

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// cycle is what one ListAndWatch call carries from state to state.
type cycle struct {
	// handoff is the stream of a successful streaming list; the next watch
	// continues on it instead of opening a new one.
	handoff watch.Interface
	// resume is the state a rewatch backoff returns to.
	resume state
	// watchListRetried records that a streaming list has already been retried
	// at "" after a 410 in this cycle.
	watchListRetried bool
	// internalErrors tracks the 500s that ended this cycle's watches
	// (Options.MaxInternalErrorRetryDuration).
	internalErrors retryWithDeadline

	// resyncErr carries the error of a failed Store.Resync to the watch.
	resyncErr chan error
	// stopResync and resyncDone stop the resync goroutine and wait for it.
	stopResync context.CancelFunc
	resyncDone chan struct{}
}

// startResync starts the resync goroutine the first time the cycle reaches
// the watching state. It runs alongside every watch of the cycle, and across
// rewatch backoffs, until the cycle ends.
//
// Resync is a timer, not a relist: every ResyncPeriod (measured from the end
// of the previous resync) it asks ShouldResync and, if allowed, calls
// Store.Resync, which re-delivers what the Store already holds. Nothing is read
// from the server.
func (c *cycle) startResync(ctx context.Context, r *Reflector) {
	if c.resyncErr != nil {
		return
	}
	c.resyncErr = make(chan error, 1)
	if r.opts.ResyncPeriod <= 0 {
		return // never resync; the nil timer channel below would block forever
	}
	rctx, cancel := context.WithCancel(ctx)
	c.stopResync = cancel
	c.resyncDone = make(chan struct{})
	r.mu.Lock()
	r.resyncRunning = true
	r.mu.Unlock()
	go r.resyncLoop(rctx, c.resyncErr, c.resyncDone)
}

// resyncLoop is the resync goroutine. A fresh timer per period means a
// resync that takes long never causes a burst of catch-up resyncs. The first
// error from Store.Resync is sent to the watch, which ends (and the Reflector
// relists); the goroutine then exits.
func (r *Reflector) resyncLoop(ctx context.Context, errc chan<- error, done chan<- struct{}) {
	defer close(done)
	for {
		t := time.NewTimer(r.opts.ResyncPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if r.opts.ShouldResync != nil && !r.opts.ShouldResync() {
			continue
		}
		r.logger.Debug("reflector: resync")
		if err := r.store.Resync(); err != nil {
			errc <- err // buffered: the only send
			return
		}
	}
}

// close ends the cycle: it stops a handed-off stream nobody consumed and the
// resync goroutine, and waits for that goroutine to exit.
func (c *cycle) close(r *Reflector) {
	if c.handoff != nil {
		c.handoff.Stop()
		c.handoff = nil
	}
	if c.stopResync != nil {
		c.stopResync()
		<-c.resyncDone
		r.mu.Lock()
		r.resyncRunning = false
		r.mu.Unlock()
	}
}
