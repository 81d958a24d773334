package informer

// ResourceEventHandler is told what happened to the objects an informer
// watches (diagram step 6). By the time a method is called the informer's
// cache already holds the change, so a handler that reads the cache sees the
// object at least as new as the one it was given.
//
// The objects are the cache's own: a handler must never mutate them (copy
// first, e.g. with DeepCopy). A handler should be quick — typically it
// computes the object's key and adds it to a workqueue — but a slow one only
// slows itself: each registration has its own goroutine and buffer.
//
//   - OnAdd: an object appeared. isInInitialList is true while the informer
//     delivers its initial list, and for the replay of the cache a handler
//     registered on a running informer receives.
//   - OnUpdate: an object changed, or — when oldObj and newObj carry the same
//     resourceVersion — the informer re-delivered an unchanged object (a
//     resync, or a relist that found nothing new).
//   - OnDelete: an object disappeared. obj is its last known state, or a
//     [deltafifo.DeletedFinalStateUnknown] tombstone when the deletion was
//     noticed by a relist rather than seen on the watch.
//
// client-go: tools/cache.ResourceEventHandler.
type ResourceEventHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// ResourceEventHandlerFuncs adapts plain functions to a
// [ResourceEventHandler]. A nil function ignores its notification. AddFunc
// does not receive isInInitialList; use [ResourceEventHandlerDetailedFuncs]
// when you need it.
//
// client-go: tools/cache.ResourceEventHandlerFuncs.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj any)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc if it is set.
func (f ResourceEventHandlerFuncs) OnAdd(obj any, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj any) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f ResourceEventHandlerFuncs) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// ResourceEventHandlerDetailedFuncs adapts plain functions to a
// ResourceEventHandler, as ResourceEventHandlerFuncs does, except that AddFunc
// also receives isInInitialList: whether the object comes from the initial
// list (or the replay of the cache to a handler added late) rather than from
// a change the informer watched. A nil function ignores its notification.
//
// client-go: tools/cache.ResourceEventHandlerDetailedFuncs.
type ResourceEventHandlerDetailedFuncs struct {
	AddFunc    func(obj any, isInInitialList bool)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc if it is set.
func (f ResourceEventHandlerDetailedFuncs) OnAdd(obj any, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f ResourceEventHandlerDetailedFuncs) OnUpdate(oldObj, newObj any) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f ResourceEventHandlerDetailedFuncs) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// FilteringResourceEventHandler passes to Handler only the notifications
// about objects FilterFunc accepts. An update is judged on both of its
// objects, so Handler sees the filtered set change as it would see a cache
// holding only the accepted objects:
//
//	old accepted, new accepted  -> OnUpdate(old, new)
//	only new accepted           -> OnAdd(new, false)  (the object entered the set)
//	only old accepted           -> OnDelete(old)      (the object left the set)
//	neither                     -> nothing
//
// FilterFunc receives whatever the informer delivers, including a
// [deltafifo.DeletedFinalStateUnknown] on OnDelete. A nil FilterFunc accepts
// everything.
//
// client-go: tools/cache.FilteringResourceEventHandler.
type FilteringResourceEventHandler struct {
	FilterFunc func(obj any) bool
	Handler    ResourceEventHandler
}

func (f FilteringResourceEventHandler) accepts(obj any) bool {
	return f.FilterFunc == nil || f.FilterFunc(obj)
}

// OnAdd passes the notification on if obj is accepted.
func (f FilteringResourceEventHandler) OnAdd(obj any, isInInitialList bool) {
	if f.accepts(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate passes on an update, an add or a delete, depending on which of the
// two objects are accepted.
func (f FilteringResourceEventHandler) OnUpdate(oldObj, newObj any) {
	oldIn, newIn := f.accepts(oldObj), f.accepts(newObj)
	switch {
	case oldIn && newIn:
		f.Handler.OnUpdate(oldObj, newObj)
	case newIn:
		f.Handler.OnAdd(newObj, false)
	case oldIn:
		f.Handler.OnDelete(oldObj)
	}
}

// OnDelete passes the notification on if obj is accepted.
func (f FilteringResourceEventHandler) OnDelete(obj any) {
	if f.accepts(obj) {
		f.Handler.OnDelete(obj)
	}
}
