package controller

import (
	"context"

	"github.com/informerlab/informerlab/workqueue"
)

// EventHandler turns events into Requests on the controller's queue (diagram
// step 7). It is where a controller decides *which* object to reconcile when
// something happens: the object itself ([EnqueueRequestForObject]), its owner
// ([EnqueueRequestForOwner]), or any objects a function names
// ([EnqueueRequestsFromMapFunc]).
//
// A handler enqueues keys and nothing else: no API calls, no decisions about
// what to do. It is called from the informer's handler goroutine (or a
// [Channel] source's goroutine), one event at a time per source, and must not
// block for long. Events carry shared cached objects: never modify them.
//
// client-go: controller-runtime pkg/handler.EventHandler.
type EventHandler interface {
	Create(ctx context.Context, e CreateEvent, queue workqueue.RateLimitingInterface[Request])
	Update(ctx context.Context, e UpdateEvent, queue workqueue.RateLimitingInterface[Request])
	Delete(ctx context.Context, e DeleteEvent, queue workqueue.RateLimitingInterface[Request])
	Generic(ctx context.Context, e GenericEvent, queue workqueue.RateLimitingInterface[Request])
}

// EventHandlerFuncs adapts plain functions to an [EventHandler]. A nil
// function ignores its events.
//
// client-go: controller-runtime pkg/handler.Funcs.
type EventHandlerFuncs struct {
	CreateFunc  func(ctx context.Context, e CreateEvent, queue workqueue.RateLimitingInterface[Request])
	UpdateFunc  func(ctx context.Context, e UpdateEvent, queue workqueue.RateLimitingInterface[Request])
	DeleteFunc  func(ctx context.Context, e DeleteEvent, queue workqueue.RateLimitingInterface[Request])
	GenericFunc func(ctx context.Context, e GenericEvent, queue workqueue.RateLimitingInterface[Request])
}

// Create calls CreateFunc if it is set.
func (f EventHandlerFuncs) Create(ctx context.Context, e CreateEvent, queue workqueue.RateLimitingInterface[Request]) {
	if f.CreateFunc != nil {
		f.CreateFunc(ctx, e, queue)
	}
}

// Update calls UpdateFunc if it is set.
func (f EventHandlerFuncs) Update(ctx context.Context, e UpdateEvent, queue workqueue.RateLimitingInterface[Request]) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(ctx, e, queue)
	}
}

// Delete calls DeleteFunc if it is set.
func (f EventHandlerFuncs) Delete(ctx context.Context, e DeleteEvent, queue workqueue.RateLimitingInterface[Request]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(ctx, e, queue)
	}
}

// Generic calls GenericFunc if it is set.
func (f EventHandlerFuncs) Generic(ctx context.Context, e GenericEvent, queue workqueue.RateLimitingInterface[Request]) {
	if f.GenericFunc != nil {
		f.GenericFunc(ctx, e, queue)
	}
}

// EnqueueRequestForObject enqueues the Request of the object the event is
// about: the handler of a controller's primary resource (Builder.For).
// An update enqueues one Request, for ObjectNew (ObjectOld if ObjectNew is
// nil). An event without an object enqueues nothing.
//
// client-go: controller-runtime pkg/handler.EnqueueRequestForObject.
type EnqueueRequestForObject struct{}

// Create enqueues the created object.
func (EnqueueRequestForObject) Create(_ context.Context, e CreateEvent, queue workqueue.RateLimitingInterface[Request]) {
	enqueueObject(e.Object, queue)
}

// Update enqueues the updated object, once.
func (EnqueueRequestForObject) Update(_ context.Context, e UpdateEvent, queue workqueue.RateLimitingInterface[Request]) {
	if e.ObjectNew != nil {
		enqueueObject(e.ObjectNew, queue)
		return
	}
	enqueueObject(e.ObjectOld, queue)
}

// Delete enqueues the deleted object: its Reconcile finds it gone.
func (EnqueueRequestForObject) Delete(_ context.Context, e DeleteEvent, queue workqueue.RateLimitingInterface[Request]) {
	enqueueObject(e.Object, queue)
}

// Generic enqueues the event's object.
func (EnqueueRequestForObject) Generic(_ context.Context, e GenericEvent, queue workqueue.RateLimitingInterface[Request]) {
	enqueueObject(e.Object, queue)
}

// enqueueObject adds obj's Request to the queue (step 7): the key, never the
// object.
func enqueueObject(obj Object, queue workqueue.RateLimitingInterface[Request]) {
	if obj == nil {
		return
	}
	// Step 7 (enqueue key): only namespace/name goes on the queue.
	queue.Add(requestFor(obj))
}
