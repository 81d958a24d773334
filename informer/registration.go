package informer

// ResourceEventHandlerRegistration is the handle AddEventHandler returns for
// one handler. Pass it to RemoveEventHandler to unregister the handler, and
// to WaitForCacheSync to wait until the handler has seen the initial list.
//
// client-go: tools/cache.ResourceEventHandlerRegistration.
type ResourceEventHandlerRegistration interface {
	// HasSynced reports whether the informer has synced and this handler has
	// returned from every OnAdd of the initial list (or, for a handler added
	// to a running informer, of the replay of the cache). Done is closed
	// when it becomes true; it never reverts.
	DoneChecker

	// Backlog returns how many notifications wait in the handler's buffer,
	// not counting the one being handled: how far behind the handler is.
	Backlog() int

	// Panics returns how many notifications the handler panicked on (each
	// was logged and skipped).
	Panics() int64
}

var _ ResourceEventHandlerRegistration = (*processorListener)(nil)
