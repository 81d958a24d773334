package controller

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/workqueue"
)

// OwnerOption configures [EnqueueRequestForOwner].
//
// client-go: controller-runtime pkg/handler.OwnerOption.
type OwnerOption func(*enqueueRequestForOwner)

// OnlyControllerOwner makes [EnqueueRequestForOwner] follow only the owner
// reference with controller: true, the one owner that manages the object.
// [builder.Builder.Owns] uses it.
//
// client-go: controller-runtime pkg/handler.OnlyControllerOwner.
func OnlyControllerOwner() OwnerOption {
	return func(e *enqueueRequestForOwner) { e.onlyController = true }
}

// OwnerIsClusterScoped tells [EnqueueRequestForOwner] that the owner kind
// is cluster-scoped, so its Requests carry no namespace. Without it the
// owner is taken to live in the owned object's namespace (an owner reference
// has no namespace field: a namespaced owner is always in the same namespace
// as what it owns).
//
// client-go: none (controller-runtime asks its RESTMapper for the owner's scope).
func OwnerIsClusterScoped() OwnerOption {
	return func(e *enqueueRequestForOwner) { e.clusterScopedOwner = true }
}

// EnqueueRequestForOwner returns a handler that, for an event about an owned
// object (a Deployment's Pod, a Foo's Deployment), enqueues the Requests of
// its owners of the given group and kind — so a change to something a
// controller created brings the creator back to reconcile.
//
// Owner references are matched on the API group and kind of their
// apiVersion; the version is ignored (an owner reference written as
// apps/v1beta1 still names an apps Deployment). An update enqueues the owners
// of both the old and the new object, each once: if the owner reference
// changed, both the former and the new owner hear of it. Deletions found by a
// relist arrive here already unwrapped from their tombstone (the [Kind]
// source does that), so a vanished owned object still reaches its owner.
//
// client-go: controller-runtime pkg/handler.EnqueueRequestForOwner.
func EnqueueRequestForOwner(owner schema.GroupKind, opts ...OwnerOption) EventHandler {
	e := &enqueueRequestForOwner{owner: owner}
	for _, opt := range opts {
		opt(e)
	}
	return e
}

type enqueueRequestForOwner struct {
	owner              schema.GroupKind
	onlyController     bool
	clusterScopedOwner bool
}

func (e *enqueueRequestForOwner) Create(_ context.Context, ev CreateEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.enqueueOwners(queue, ev.Object)
}

func (e *enqueueRequestForOwner) Update(_ context.Context, ev UpdateEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.enqueueOwners(queue, ev.ObjectOld, ev.ObjectNew)
}

func (e *enqueueRequestForOwner) Delete(_ context.Context, ev DeleteEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.enqueueOwners(queue, ev.Object)
}

func (e *enqueueRequestForOwner) Generic(_ context.Context, ev GenericEvent, queue workqueue.RateLimitingInterface[Request]) {
	e.enqueueOwners(queue, ev.Object)
}

// enqueueOwners adds the Request of every matching owner of objs, once each.
func (e *enqueueRequestForOwner) enqueueOwners(queue workqueue.RateLimitingInterface[Request], objs ...Object) {
	seen := map[Request]bool{}
	for _, obj := range objs {
		if obj == nil {
			continue
		}
		for _, ref := range e.matchingOwners(obj) {
			req := Request{NamespacedName: types.NamespacedName{Name: ref.Name}}
			if !e.clusterScopedOwner {
				req.Namespace = obj.GetNamespace()
			}
			if !seen[req] {
				seen[req] = true
				// Step 7 (enqueue key): the owner's key, not the owned object's.
				queue.Add(req)
			}
		}
	}
}

// matchingOwners returns obj's owner references to the owner kind.
func (e *enqueueRequestForOwner) matchingOwners(obj metav1.Object) []metav1.OwnerReference {
	var refs []metav1.OwnerReference
	for _, ref := range obj.GetOwnerReferences() {
		if e.onlyController && (ref.Controller == nil || !*ref.Controller) {
			continue
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			continue // an owner reference with a malformed apiVersion names nothing
		}
		if gv.Group == e.owner.Group && ref.Kind == e.owner.Kind {
			refs = append(refs, ref)
		}
	}
	return refs
}
