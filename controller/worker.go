package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
)

// processNextWorkItem is one turn of a worker: take a Request off the queue
// (step 8), reconcile it, and decide its future. It returns false when the
// queue has shut down, ending the worker.
//
// client-go: controller-runtime internal/controller.processNextWorkItem and
// sample-controller's processNextWorkItem.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	// Step 8 (get key): blocks until a Request is ready. The queue never
	// hands the same Request to two workers at once.
	req, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	// Done, whatever happens: without it the Request would stay "processing"
	// forever and never be handed out again.
	defer c.queue.Done(req)
	if ctx.Err() != nil {
		return false // stopping: leave the rest of the queue
	}
	c.reconcileHandler(ctx, req)
	return true
}

// reconcileHandler calls the Reconciler and applies the outcome table:
//
//	Reconcile returned          queue action                         counted as
//	error (not terminal)        AddRateLimited (RequeueAfter ignored) Errors
//	TerminalError               Forget, no requeue                   TerminalErrors
//	RequeueAfter > 0, no error  Forget, then AddAfter(RequeueAfter)  RequeueAfter
//	zero Result, no error       Forget                               Success
func (c *Controller) reconcileHandler(ctx context.Context, req Request) {
	logger := c.logger.With("request", req.String())
	result, err := c.reconcile(withLogger(ctx, logger), req)
	switch {
	case err != nil && errors.Is(err, TerminalError(nil)):
		// Retrying cannot help; the next event for the object will bring
		// it back. Forget clears its failure count, so the limiter keeps
		// no state for it.
		c.counts.terminal.Add(1)
		c.queue.Forget(req)
		logger.Error("reconcile failed with a terminal error; not requeued", "err", err)
	case err != nil:
		c.counts.errors.Add(1)
		if !result.IsZero() {
			logger.Info("Reconcile returned both a Result and an error: the Result is ignored and the error's backoff applies",
				"requeueAfter", result.RequeueAfter)
		}
		c.queue.AddRateLimited(req)
		logger.Error("reconcile failed; requeued with backoff", "err", err, "retries", c.queue.NumRequeues(req))
	case result.RequeueAfter > 0:
		// A RequeueAfter is not a failure: reset the backoff first, so
		// that a later error starts again from the base delay.
		c.counts.requeueAfter.Add(1)
		c.queue.Forget(req)
		c.queue.AddAfter(req, result.RequeueAfter)
		logger.Debug("reconciled; requeued", "after", result.RequeueAfter)
	default:
		c.counts.success.Add(1)
		c.queue.Forget(req)
		logger.Debug("reconciled")
	}
}

// reconcile calls the Reconciler, turning a panic into an error unless
// RecoverPanic is false.
func (c *Controller) reconcile(ctx context.Context, req Request) (result Result, err error) {
	if c.recoverPanic {
		defer func() {
			if r := recover(); r != nil {
				c.counts.panics.Add(1)
				LoggerFrom(ctx).Error("Reconcile panicked", "panic", r, "stack", string(debug.Stack()))
				result, err = Result{}, fmt.Errorf("controller %q: panic in Reconcile(%s): %v [recovered]", c.name, req, r)
			}
		}()
	}
	// Step 9 happens inside: the Reconciler reads the object for req from
	// the cache.
	return c.reconciler.Reconcile(ctx, req)
}
