package controller

import (
	"context"

	"github.com/informerlab/informerlab/workqueue"
)

// MapFunc names the objects to reconcile when obj changes. It runs on the
// handler goroutine: it should read caches, not call the API server.
//
// client-go: controller-runtime pkg/handler.MapFunc.
type MapFunc func(ctx context.Context, obj Object) []Request

// EnqueueRequestsFromMapFunc returns a handler that enqueues whatever Requests
// fn returns for the event's object: the general form of "this change
// concerns those objects" (a ConfigMap referenced by several Foos, say).
// An update maps both the old and the new object and enqueues the union once
// each, so objects that stopped being concerned hear of it as well as those
// that started.
//
// client-go: controller-runtime pkg/handler.EnqueueRequestsFromMapFunc.
func EnqueueRequestsFromMapFunc(fn MapFunc) EventHandler {
	return &enqueueRequestsFromMapFunc{toRequests: fn}
}

type enqueueRequestsFromMapFunc struct {
	toRequests MapFunc
}

func (e *enqueueRequestsFromMapFunc) Create(ctx context.Context, ev CreateEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.mapAndEnqueue(ctx, queue, ev.Object)
}

func (e *enqueueRequestsFromMapFunc) Update(ctx context.Context, ev UpdateEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.mapAndEnqueue(ctx, queue, ev.ObjectOld, ev.ObjectNew)
}

func (e *enqueueRequestsFromMapFunc) Delete(ctx context.Context, ev DeleteEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.mapAndEnqueue(ctx, queue, ev.Object)
}

func (e *enqueueRequestsFromMapFunc) Generic(ctx context.Context, ev GenericEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.mapAndEnqueue(ctx, queue, ev.Object)
}

// mapAndEnqueue adds the Requests of every object in objs, once each.
func (e *enqueueRequestsFromMapFunc) mapAndEnqueue(ctx context.Context, queue workqueue.RateLimitingInterface[Request], objs ...Object) {
	if e.toRequests == nil {
		return
	}
	seen := map[Request]bool{}
	for _, obj := range objs {
		if obj == nil {
			continue
		}
		for _, req := range e.toRequests(ctx, obj) {
			if !seen[req] {
				seen[req] = true
				queue.Add(req) // Step 7 (enqueue key).
			}
		}
	}
}
