package controller

import (
	"context"

	"github.com/informerlab/informerlab/workqueue"
)

// Queue exposes the controller's workqueue to tests, to read NumRequeues.
func (c *Controller) Queue() workqueue.RateLimitingInterface[Request] { return c.queue }

// ReconcileOnce calls the Reconciler as a worker would, with panic recovery
// as configured, without touching the queue.
func (c *Controller) ReconcileOnce(ctx context.Context, req Request) (Result, error) {
	return c.reconcile(ctx, req)
}

// WithLogger gives tests that start sources by hand a quiet logger.
var WithLogger = withLogger
