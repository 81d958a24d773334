package samplecontroller

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/workqueue"
)

// The wrappers below report to an Observer what the pieces they wrap do.
// New uses them only when Options.Observer is set; otherwise the plain
// predicates, handlers and rate limiter are wired, and observing costs
// nothing.

func isTerminal(err error) bool { return errors.Is(err, controller.TerminalError(nil)) }

// objectKey returns the namespace/name of an event's object.
func objectKey(obj controller.Object) string {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return "<none>"
	}
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// observedPredicate reports every event a source receives (step 6), with
// whether its predicate (nil: none) let it through.
type observedPredicate struct {
	inner                controller.Predicate // nil passes everything
	name                 string               // the inner predicate, for Event.Detail
	obs                  Observer
	controller, resource string
}

func (p observedPredicate) report(verb string, obj controller.Object, pass bool) bool {
	e := Event{Step: StepHandler, Controller: p.controller, Resource: p.resource, Key: objectKey(obj), Verb: verb}
	if !pass {
		e.Dropped, e.Detail = true, p.name
	}
	p.obs(e)
	return pass
}

func (p observedPredicate) Create(e controller.CreateEvent) bool {
	return p.report("add", e.Object, p.inner == nil || p.inner.Create(e))
}

func (p observedPredicate) Update(e controller.UpdateEvent) bool {
	verb := "update"
	if e.ObjectOld != nil && e.ObjectNew != nil && e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
		verb = "resync"
	}
	return p.report(verb, e.ObjectNew, p.inner == nil || p.inner.Update(e))
}

func (p observedPredicate) Delete(e controller.DeleteEvent) bool {
	verb := "delete"
	if e.DeleteStateUnknown {
		verb = "delete (state unknown)"
	}
	return p.report(verb, e.Object, p.inner == nil || p.inner.Delete(e))
}

func (p observedPredicate) Generic(e controller.GenericEvent) bool {
	return p.report("generic", e.Object, p.inner == nil || p.inner.Generic(e))
}

// observedHandler hands its inner handler a queue that reports every Add
// (step 7), naming the object whose event caused it when that is not the
// Request's own object (an owned Deployment enqueuing its Foo).
type observedHandler struct {
	inner                controller.EventHandler
	obs                  Observer
	controller, resource string
	mapsToOwner          bool // the Requests are of another resource than the events
}

func (h observedHandler) queue(q workqueue.RateLimitingInterface[controller.Request], obj controller.Object) workqueue.RateLimitingInterface[controller.Request] {
	oq := observedQueue{RateLimitingInterface: q, obs: h.obs, controller: h.controller}
	if h.mapsToOwner {
		oq.detail = "owner of " + h.resource + " " + objectKey(obj)
	}
	return oq
}

func (h observedHandler) Create(ctx context.Context, e controller.CreateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	h.inner.Create(ctx, e, h.queue(q, e.Object))
}

func (h observedHandler) Update(ctx context.Context, e controller.UpdateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	h.inner.Update(ctx, e, h.queue(q, e.ObjectNew))
}

func (h observedHandler) Delete(ctx context.Context, e controller.DeleteEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	h.inner.Delete(ctx, e, h.queue(q, e.Object))
}

func (h observedHandler) Generic(ctx context.Context, e controller.GenericEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	h.inner.Generic(ctx, e, h.queue(q, e.Object))
}

// observedQueue reports each Add, then adds.
type observedQueue struct {
	workqueue.RateLimitingInterface[controller.Request]
	obs                Observer
	controller, detail string
}

func (q observedQueue) Add(req controller.Request) {
	q.obs(Event{Step: StepEnqueue, Controller: q.controller, Request: req, Detail: q.detail})
	q.RateLimitingInterface.Add(req)
}

// observedReconciler reports each Request a worker took (step 8) and how
// its Reconcile ended.
type observedReconciler struct {
	inner      controller.Reconciler
	obs        Observer
	controller string
}

func (r observedReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	r.obs(Event{Step: StepGetKey, Controller: r.controller, Request: req})
	result, err := r.inner.Reconcile(ctx, req)
	r.obs(Event{Step: StepReconcile, Controller: r.controller, Request: req, Result: result, Err: err})
	return result, err
}

// observedLimiter reports the delay the rate limiter gives each failed
// Request.
type observedLimiter struct {
	inner      workqueue.RateLimiter[controller.Request]
	obs        Observer
	controller string
}

func (l observedLimiter) When(req controller.Request) time.Duration {
	d := l.inner.When(req)
	l.obs(Event{Step: StepBackoff, Controller: l.controller, Request: req, Delay: d, Failures: l.inner.NumRequeues(req)})
	return d
}

func (l observedLimiter) Forget(req controller.Request)          { l.inner.Forget(req) }
func (l observedLimiter) NumRequeues(req controller.Request) int { return l.inner.NumRequeues(req) }
