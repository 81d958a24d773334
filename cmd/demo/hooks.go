package main

import (
	"context"
	"time"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/workqueue"
)

// narratedHandler wraps a controller's EventHandler to narrate step 7: the
// event it got, and the key it put on the queue (or that it put none).
type narratedHandler struct {
	inner controller.EventHandler
	n     *narrator
	who   string // the controller
	kind  string // the kind of the watched objects
	quiet bool
}

// enqueueSpy is the queue a wrapped handler sees: it narrates each Add.
type enqueueSpy struct {
	workqueue.RateLimitingInterface[controller.Request]
	h     *narratedHandler
	event string
	added bool
}

func (q *enqueueSpy) Add(req controller.Request) {
	q.added = true
	if !q.h.quiet || q.h.n.verbose {
		q.h.n.step(tagEnqueue, "%s queue ← %s (%s)", q.h.who, req, q.event)
	}
	q.RateLimitingInterface.Add(req)
}

func (h *narratedHandler) spy(q workqueue.RateLimitingInterface[controller.Request], event string) *enqueueSpy {
	return &enqueueSpy{RateLimitingInterface: q, h: h, event: event}
}

func (h *narratedHandler) after(q *enqueueSpy) {
	if !q.added && (!h.quiet || h.n.verbose) {
		h.n.step(tagEnqueue, "%s: nothing to enqueue for %s (no controlling owner Foo)", h.who, q.event)
	}
}

func (h *narratedHandler) Create(ctx context.Context, e controller.CreateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	s := h.spy(q, "Create "+h.kind+" "+objectKey(e.Object))
	h.inner.Create(ctx, e, s)
	h.after(s)
}

func (h *narratedHandler) Update(ctx context.Context, e controller.UpdateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	ev := "Update " + h.kind + " " + objectKey(e.ObjectNew)
	if e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
		ev += ", unchanged: resync"
	}
	if h.n.verbose && (!h.quiet) {
		if d := diffObjects(e.ObjectOld, e.ObjectNew); d != "" {
			h.n.detail(stageHandler, "%s", d)
		}
	}
	s := h.spy(q, ev)
	h.inner.Update(ctx, e, s)
	h.after(s)
}

func (h *narratedHandler) Delete(ctx context.Context, e controller.DeleteEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	ev := "Delete " + h.kind + " " + objectKey(e.Object)
	if e.DeleteStateUnknown {
		ev += ", a tombstone: DeletedFinalStateUnknown from a relist"
	}
	s := h.spy(q, ev)
	h.inner.Delete(ctx, e, s)
	h.after(s)
}

func (h *narratedHandler) Generic(ctx context.Context, e controller.GenericEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	s := h.spy(q, "Generic "+h.kind+" "+objectKey(e.Object))
	h.inner.Generic(ctx, e, s)
	h.after(s)
}

// narratedPredicate narrates the events a predicate drops.
type narratedPredicate struct {
	inner controller.Predicate
	name  string
	n     *narrator
	who   string
	kind  string
}

func (p narratedPredicate) Create(e controller.CreateEvent) bool { return p.inner.Create(e) }
func (p narratedPredicate) Delete(e controller.DeleteEvent) bool { return p.inner.Delete(e) }
func (p narratedPredicate) Generic(e controller.GenericEvent) bool {
	return p.inner.Generic(e)
}

func (p narratedPredicate) Update(e controller.UpdateEvent) bool {
	ok := p.inner.Update(e)
	if !ok {
		why := "a status or metadata write"
		if e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
			why = "nothing changed: a resync"
		}
		p.n.step(tagEnqueue, "%s: Update %s %s dropped by %s (generation %d unchanged: %s)",
			p.who, p.kind, objectKey(e.ObjectNew), p.name, e.ObjectNew.GetGeneration(), why)
	}
	return ok
}

// narratedLimiter narrates the delay the rate limiter gives a failed Request
// (AddRateLimited, step 7 again).
type narratedLimiter struct {
	workqueue.RateLimiter[controller.Request]
	n   *narrator
	who string
}

func (l narratedLimiter) When(req controller.Request) time.Duration {
	d := l.RateLimiter.When(req)
	l.n.stepAt(stageWorker, tagEnqueue, "%s queue ← %s again after %s (AddRateLimited: failure #%d, the delay doubles each time)",
		l.who, req, d, l.RateLimiter.NumRequeues(req))
	return d
}

func (l narratedLimiter) Forget(req controller.Request) {
	if n := l.RateLimiter.NumRequeues(req); n > 0 {
		l.n.step(tagReconcile, "%s: %s succeeded after %d retries: Forget resets its backoff", l.who, req, n)
	}
	l.RateLimiter.Forget(req)
}

// reconcileErrors narrates a Reconciler's errors.
type reconcileErrors struct {
	inner controller.Reconciler
	n     *narrator
}

func (r reconcileErrors) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	res, err := r.inner.Reconcile(ctx, req)
	if err != nil {
		r.n.step(tagReconcile, "%s: error: %v", req, err)
	}
	return res, err
}
