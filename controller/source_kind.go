package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/workqueue"
)

// Kind returns a source that watches inf: it registers an event handler on the
// informer (step 6) that converts each notification into an event, runs
// predicates, and passes what survives to handler (step 7).
//
//	informer --OnAdd/OnUpdate/OnDelete--> predicates --> handler --Add--> queue
//
// The source does not run the informer; whoever owns it does (the
// [manager.Manager]'s cache, or the caller). Its WaitForSync waits until the informer
// has synced and the registration has too: every object of the initial list
// has passed through the handler, so the first Reconcile sees a queue that
// holds the whole initial state.
//
// An OnDelete carrying a [deltafifo.DeletedFinalStateUnknown] tombstone is
// unwrapped: the DeleteEvent gets the tombstone's last known object and
// DeleteStateUnknown is set. A tombstone without an object is dropped, as are
// notifications whose object has no metadata; both are logged.
// When ctx ends, the handler is removed from the informer.
//
// client-go: controller-runtime pkg/source.Kind (which also looks the informer
// up in a cache; here the informer is passed in).
func Kind(inf informer.SharedIndexInformer, handler EventHandler, predicates ...Predicate) *KindSource {
	return &KindSource{informer: inf, handler: handler, predicates: predicates}
}

// KindSource is the source [Kind] returns. It can be started once.
//
// client-go: controller-runtime pkg/internal/source.Kind.
type KindSource struct {
	// Resource names the informer's resource in logs and errors
	// ("configmaps", "deployments.apps"), when known; the builder sets it.
	Resource string

	informer   informer.SharedIndexInformer
	handler    EventHandler
	predicates []Predicate

	mu           sync.Mutex // guards the fields below
	registration informer.ResourceEventHandlerRegistration
	started      bool
}

// String names the source in logs and errors: "Kind(configmaps)" when the
// resource is known, "Kind" otherwise.
func (k *KindSource) String() string {
	if k.Resource == "" {
		return "Kind"
	}
	return "Kind(" + k.Resource + ")"
}

// Start registers the source's handler on the informer.
func (k *KindSource) Start(ctx context.Context, queue workqueue.RateLimitingInterface[Request]) error {
	switch {
	case k.informer == nil:
		return errors.New("controller: Kind source: informer is nil")
	case k.handler == nil:
		return errors.New("controller: Kind source: handler is nil")
	case queue == nil:
		return errors.New("controller: Kind source: queue is nil")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.started {
		return fmt.Errorf("controller: %s source was started twice", k)
	}
	k.started = true

	adapter := &eventAdapter{ctx: ctx, queue: queue, handler: k.handler, predicates: k.predicates, logger: LoggerFrom(ctx)}
	reg, err := k.informer.AddEventHandler(adapter)
	if err != nil {
		return fmt.Errorf("controller: %s source: %w", k, err)
	}
	k.registration = reg
	context.AfterFunc(ctx, func() { _ = k.informer.RemoveEventHandler(reg) })
	return nil
}

// WaitForSync waits until the informer and the source's handler registration
// have both synced, or ctx ends (an error).
func (k *KindSource) WaitForSync(ctx context.Context) error {
	k.mu.Lock()
	reg := k.registration
	k.mu.Unlock()
	if reg == nil {
		return fmt.Errorf("controller: %s source: WaitForSync before Start", k)
	}
	if !informer.WaitForCacheSync(ctx, k.informer, reg) {
		return fmt.Errorf("controller: %s source: not synced (informer synced: %t, handler synced: %t): %w",
			k, k.informer.HasSynced(), reg.HasSynced(), context.Cause(ctx))
	}
	return nil
}

// eventAdapter is the informer.ResourceEventHandler a Kind source registers:
// it turns notifications into events, filters them and calls the handler.
type eventAdapter struct {
	ctx        context.Context
	queue      workqueue.RateLimitingInterface[Request]
	handler    EventHandler
	predicates []Predicate
	logger     *slog.Logger
}

// OnAdd is step 6 arriving here: a created (or initially listed) object.
func (a *eventAdapter) OnAdd(obj any, isInInitialList bool) {
	o, err := asObject(obj)
	if err != nil {
		a.logger.Error("dropping add notification", "err", err)
		return
	}
	e := CreateEvent{Object: o, IsInInitialList: isInInitialList}
	if all(a.predicates, func(p Predicate) bool { return p.Create(e) }) {
		a.handler.Create(a.ctx, e, a.queue)
	}
}

// OnUpdate turns an informer update into an UpdateEvent.
func (a *eventAdapter) OnUpdate(oldObj, newObj any) {
	oldO, err := asObject(oldObj)
	if err != nil {
		a.logger.Error("dropping update notification", "err", err)
		return
	}
	newO, err := asObject(newObj)
	if err != nil {
		a.logger.Error("dropping update notification", "err", err)
		return
	}
	e := UpdateEvent{ObjectOld: oldO, ObjectNew: newO}
	if all(a.predicates, func(p Predicate) bool { return p.Update(e) }) {
		a.handler.Update(a.ctx, e, a.queue)
	}
}

// OnDelete turns an informer deletion into a DeleteEvent, unwrapping a
// tombstone.
func (a *eventAdapter) OnDelete(obj any) {
	e := DeleteEvent{}
	if tombstone, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		e.DeleteStateUnknown = true
		obj = tombstone.Obj
		if obj == nil {
			a.logger.Error("dropping delete notification: tombstone without an object", "key", tombstone.Key)
			return
		}
	}
	o, err := asObject(obj)
	if err != nil {
		a.logger.Error("dropping delete notification", "err", err)
		return
	}
	e.Object = o
	if all(a.predicates, func(p Predicate) bool { return p.Delete(e) }) {
		a.handler.Delete(a.ctx, e, a.queue)
	}
}
