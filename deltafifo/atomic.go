package deltafifo

// Atomic mode: why a relist became one delta.
//
// In the default mode a relist of n objects becomes up to n+m separate
// deltas (tombstones, then Replaced deltas), and the consumer applies them
// one at a time, telling its handlers after each. Between the first and the
// last, the consumer's store holds some objects from the new list and some
// from before it: a state the server never had. A handler that reads the
// store in that window (through a lister) can act on a mix of two moments.
// Worse, computing the tombstones means reading the consumer's store from
// the producer's side, so the queue's lock must be held while the consumer
// processes, and a slow handler stalls the watch.
//
// Atomic mode (client-go 1.36, the AtomicFIFO feature, KEP-5647) moves that
// work to the consumer. Replace queues the whole list as one ReplacedAll
// delta; the consumer compares it with its own store, replaces the store in
// one step, and only then tells its handlers: the deletions first, then the
// additions and updates in list order. Resync queues one SyncAll delta; the
// consumer re-delivers whatever its store holds at that point of the line,
// which is by construction current, so nothing needs skipping. The queue no
// longer reads the consumer's store at all, which is what lets
// UnlockWhileProcessing release the lock during processing.

// ReplacedAllInfo is the Object of a [ReplacedAll] delta: one complete list.
//
// client-go: tools/cache.ReplacedAllInfo.
type ReplacedAllInfo struct {
	// ResourceVersion is the list's resourceVersion, as given to Replace.
	ResourceVersion string
	// Objects are the listed objects in list order, already transformed.
	// The slice is the queue's own; the consumer may keep it.
	Objects []any
}

// SyncAllInfo is the Object of a [SyncAll] delta. It carries nothing: the
// consumer resyncs from its own store.
//
// client-go: tools/cache.SyncAllInfo.
type SyncAllInfo struct{}

// replaceAllLocked queues a whole list as one ReplacedAll delta. The objects
// have been keyed and transformed already (prepareList), so a list with one
// bad object queues nothing.
func (f *RealFIFO) replaceAllLocked(objs []any, resourceVersion string) {
	// Step 2 (add object): the whole list joins the line as one delta.
	f.appendLocked("", ReplacedAll, ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: objs})
}

// syncAllLocked queues a resync as one SyncAll delta.
func (f *RealFIFO) syncAllLocked() {
	f.appendLocked("", SyncAll, SyncAllInfo{})
}

// isWholeStore reports the delta types that are about the whole store, not
// one object: they have no key, and PopBatch never batches them.
func isWholeStore(t DeltaType) bool {
	return t == ReplacedAll || t == SyncAll
}
