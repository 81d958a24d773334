package reflector

// Store is the narrow interface a Reflector writes to (diagram step 2).
// deltafifo.DeltaFIFO satisfies it, and so does a plain indexer.Store; the
// Reflector imports neither.
//
// The Reflector calls Add, Update, Delete and Replace from its own goroutine,
// in the order the API server sent them, and Resync from a second goroutine
// while a watch is running: an implementation must be safe for that concurrent
// use. Errors returned by Add, Update and Delete are logged and the event is
// dropped; an error from Replace fails the list (and leads to a relist after a
// backoff); an error from Resync ends the watch (and leads to a relist).
//
// client-go: tools/cache.ReflectorStore.
type Store interface {
	// Add records an object that a watch reported as added.
	Add(obj any) error
	// Update records an object that a watch reported as modified.
	Update(obj any) error
	// Delete records an object that a watch reported as deleted; obj is its
	// final state as the server sent it.
	Delete(obj any) error
	// Replace installs the complete state from a list, taken at resourceVersion.
	// Objects the Store holds that are not in list are gone.
	Replace(list []any, resourceVersion string) error
	// Resync is called every Options.ResyncPeriod (when Options.ShouldResync
	// allows it) so the Store can re-deliver what it holds.
	Resync() error
}
