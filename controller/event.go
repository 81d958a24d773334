package controller

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Object is what controllers handle: any API object with metadata. Typed
// objects (a *v1.ConfigMap-like struct with ObjectMeta) and
// *unstructured.Unstructured both satisfy it.
//
// Objects in events come from the informer's cache and are shared with every
// other handler and reader: never modify them; DeepCopyObject first.
//
// client-go: controller-runtime pkg/client.Object.
type Object interface {
	metav1.Object
	runtime.Object
}

// CreateEvent says an object appeared. IsInInitialList is true while the
// informer delivers the objects it found at startup, rather than ones created
// since.
//
// client-go: controller-runtime pkg/event.CreateEvent.
type CreateEvent struct {
	Object          Object
	IsInInitialList bool
}

// UpdateEvent says an object changed from ObjectOld to ObjectNew. When both
// carry the same resourceVersion nothing changed: it is a resync or a relist
// re-delivering the object ([predicate.ResourceVersionChangedPredicate] drops those).
//
// client-go: controller-runtime pkg/event.UpdateEvent.
type UpdateEvent struct {
	ObjectOld Object
	ObjectNew Object
}

// DeleteEvent says an object disappeared. Object is its last known state.
// DeleteStateUnknown is true when the deletion was found by a relist rather
// than seen on the watch: Object then is the last state the cache held,
// which may be stale.
//
// client-go: controller-runtime pkg/event.DeleteEvent.
type DeleteEvent struct {
	Object             Object
	DeleteStateUnknown bool
}

// GenericEvent is an event from outside the cluster's watch, sent through a
// [Channel] source: "look at this object again".
//
// client-go: controller-runtime pkg/event.GenericEvent.
type GenericEvent struct {
	Object Object
}

// asObject converts what an informer delivers to an Object.
func asObject(obj any) (Object, error) {
	o, ok := obj.(Object)
	if !ok {
		return nil, fmt.Errorf("controller: %T is not an API object with metadata", obj)
	}
	return o, nil
}

// requestFor returns the Request naming obj.
func requestFor(obj metav1.Object) Request {
	return Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
}
