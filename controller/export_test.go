package controller

import (
	"context"
	"net/http"

	"github.com/informerlab/informerlab/workqueue"
)

// Queue exposes the controller's workqueue to tests, to read NumRequeues.
func (c *Controller) Queue() workqueue.RateLimitingInterface[Request] { return c.queue }

// ReconcileOnce calls the Reconciler as a worker would, with panic recovery
// as configured, without touching the queue.
func (c *Controller) ReconcileOnce(ctx context.Context, req Request) (Result, error) {
	return c.reconcile(ctx, req)
}

// HealthHandler exposes the probe handler to tests without a socket.
func (m *Manager) HealthHandler() http.Handler { return m.healthHandler() }

// WithLogger gives tests that start sources by hand a quiet logger.
var WithLogger = withLogger

// CheckInvariants checks the broadcaster's invariants.
func (b *EventBroadcaster) CheckInvariants() error { return b.checkInvariants() }

// CheckInvariants checks the client's cache trackers.
func (c *Client) CheckInvariants() error { return c.checkInvariants() }
