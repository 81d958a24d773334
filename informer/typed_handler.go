package informer

import (
	"fmt"

	"github.com/informerlab/informerlab/deltafifo"
)

// Object is what a typed handler needs of the objects it is told about: a
// name and a namespace, so that a [deltafifo.DeletedObject] can always give
// its key, and comparable, so that a missing object (a nil pointer) can be
// told apart. Every typed Kubernetes object (*v1.Pod, *v1.ConfigMap) and
// *unstructured.Unstructured satisfy it.
//
// client-go: tools/cache.Object.
type Object interface {
	comparable
	GetName() string
	GetNamespace() string
}

// TypedResourceEventHandler is [ResourceEventHandler] for an informer whose
// objects are all of type T (diagram step 6): OnAdd and OnUpdate get a T,
// and OnDelete a [deltafifo.DeletedObject] that holds either the deleted
// object or the tombstone a relist left, with a key that can always be read.
// The handler needs no type assertions and cannot forget the tombstone case.
//
// Register one with [TypedSharedIndexInformer.AddTypedEventHandler], or hand
// [UntypedResourceEventHandler] of it to anything that takes a
// ResourceEventHandler. The rules of ResourceEventHandler hold: the objects
// are the cache's own, never mutate them.
//
// client-go: tools/cache.TypedResourceEventHandler.
type TypedResourceEventHandler[T Object] interface {
	OnAdd(obj T, isInInitialList bool)
	OnUpdate(oldObj, newObj T)
	OnDelete(obj deltafifo.DeletedObject[T])
}

// TypedResourceEventHandlerFuncs adapts plain typed functions to a
// [TypedResourceEventHandler], as [ResourceEventHandlerFuncs] does untyped.
// A nil function ignores its notification. AddFunc does not receive
// isInInitialList; use [TypedResourceEventHandlerDetailedFuncs] when you
// need it.
//
// client-go: tools/cache.TypedResourceEventHandlerFuncs.
type TypedResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj deltafifo.DeletedObject[T])
}

// OnAdd calls AddFunc if it is set.
func (f TypedResourceEventHandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f TypedResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f TypedResourceEventHandlerFuncs[T]) OnDelete(obj deltafifo.DeletedObject[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// TypedResourceEventHandlerDetailedFuncs is [TypedResourceEventHandlerFuncs]
// whose AddFunc also receives isInInitialList. A nil function ignores its
// notification.
//
// client-go: tools/cache.TypedResourceEventHandlerDetailedFuncs.
type TypedResourceEventHandlerDetailedFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj deltafifo.DeletedObject[T])
}

// OnAdd calls AddFunc if it is set.
func (f TypedResourceEventHandlerDetailedFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f TypedResourceEventHandlerDetailedFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f TypedResourceEventHandlerDetailedFuncs[T]) OnDelete(obj deltafifo.DeletedObject[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// TypedFilteringResourceEventHandler is [FilteringResourceEventHandler] for
// typed handlers: Handler sees the filtered set change as it would see a
// cache holding only the objects FilterFunc accepts, an update that enters
// the set as OnAdd(new, false) and one that leaves it as OnDelete(old). On
// OnDelete, FilterFunc is asked about [deltafifo.DeletedObject.OptionalObj],
// which is the zero T (a nil pointer) when the informer never saw the
// deleted object: a filter that reads fields must allow for that. A nil
// FilterFunc accepts everything.
//
// client-go: tools/cache.TypedFilteringResourceEventHandler.
type TypedFilteringResourceEventHandler[T Object] struct {
	FilterFunc func(obj T) bool
	Handler    TypedResourceEventHandler[T]
}

func (f TypedFilteringResourceEventHandler[T]) accepts(obj T) bool {
	return f.FilterFunc == nil || f.FilterFunc(obj)
}

// OnAdd passes the notification on if obj is accepted.
func (f TypedFilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if f.accepts(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate passes on an update, an add or a delete, depending on which of
// the two objects are accepted.
func (f TypedFilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	oldIn, newIn := f.accepts(oldObj), f.accepts(newObj)
	switch {
	case oldIn && newIn:
		f.Handler.OnUpdate(oldObj, newObj)
	case newIn:
		f.Handler.OnAdd(newObj, false)
	case oldIn:
		f.Handler.OnDelete(deltafifo.DeletedObject[T]{OptionalObj: oldObj})
	}
}

// OnDelete passes the notification on if its OptionalObj is accepted.
func (f TypedFilteringResourceEventHandler[T]) OnDelete(obj deltafifo.DeletedObject[T]) {
	if f.accepts(obj.OptionalObj) {
		f.Handler.OnDelete(obj)
	}
}

// UntypedResourceEventHandler returns the [ResourceEventHandler] that hands
// every notification to h typed: the objects of OnAdd and OnUpdate as T,
// and the obj of OnDelete as a [deltafifo.DeletedObject], built from the
// object itself or from a [deltafifo.DeletedFinalStateUnknown] tombstone
// (its Obj, if any, becomes OptionalObj). It is how a typed handler reaches
// an informer, whose processor deals in any:
// [TypedSharedIndexInformer.AddTypedEventHandler] wraps with it, and so can
// a caller of [NewInformerWithOptions] or [SharedIndexInformer.AddEventHandler].
//
// An object that is not a T means the handler was registered on an informer
// of another type, a wiring mistake: the returned handler panics with an
// error that names both types. A SharedIndexInformer recovers, logs and
// counts the panic (ResourceEventHandlerRegistration.Panics) as for any
// handler; client-go's adapter panics on the type assertion.
//
// client-go: none (tools/cache's unexported typedResourceEventHandler,
// which TypedSharedIndexInformer.AddTypedEventHandler builds).
func UntypedResourceEventHandler[T Object](h TypedResourceEventHandler[T]) ResourceEventHandler {
	return typedHandler[T]{h}
}

// typedHandler is the ResourceEventHandler over a typed one.
type typedHandler[T Object] struct {
	handler TypedResourceEventHandler[T]
}

func (h typedHandler[T]) OnAdd(obj any, isInInitialList bool) {
	h.handler.OnAdd(typed[T](obj, "OnAdd"), isInInitialList)
}

func (h typedHandler[T]) OnUpdate(oldObj, newObj any) {
	h.handler.OnUpdate(typed[T](oldObj, "OnUpdate"), typed[T](newObj, "OnUpdate"))
}

func (h typedHandler[T]) OnDelete(obj any) {
	tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown)
	if !ok {
		h.handler.OnDelete(deltafifo.DeletedObject[T]{OptionalObj: typed[T](obj, "OnDelete")})
		return
	}
	d := deltafifo.DeletedObject[T]{FinalStateUnknown: &tomb}
	if tomb.Obj != nil {
		d.OptionalObj = typed[T](tomb.Obj, "OnDelete")
	}
	h.handler.OnDelete(d)
}

// handlerName names the handler for its metrics after the typed handler it
// wraps, not after this adapter: typed funcs by their functions, as
// nameForHandler names ResourceEventHandlerFuncs.
func (h typedHandler[T]) handlerName() string {
	switch f := h.handler.(type) {
	case TypedResourceEventHandlerFuncs[T]:
		if name := nameForFunctions(f.AddFunc, f.UpdateFunc, f.DeleteFunc); name != "" {
			return name
		}
		return fmt.Sprintf("%T", f)
	case TypedResourceEventHandlerDetailedFuncs[T]:
		if name := nameForFunctions(f.AddFunc, f.UpdateFunc, f.DeleteFunc); name != "" {
			return name
		}
		return fmt.Sprintf("%T", f)
	}
	return nameForType(h.handler)
}

// typed asserts obj to T, or panics with an error naming both types.
func typed[T Object](obj any, method string) T {
	t, ok := obj.(T)
	if !ok {
		panic(fmt.Errorf("informer: a typed handler of %T got a %T in %s; register it on an informer of %T", t, obj, method, t))
	}
	return t
}
