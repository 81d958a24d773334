// Package deltafifo is the queue between the Reflector and the informer:
// steps 2 (Add Object) and 3 (Pop Object) of the client-go diagram.
//
//	Reflector ----- 2 Add Object ----> DeltaFIFO
//	  Add, Update, Delete,               key -> Deltas, keys in arrival order
//	  Replace (after each list),             |
//	  Resync (every resync period)           | 3 Pop Object
//	                                         v
//	                                     Informer: process(Deltas, isInInitialList)
//	                                       (writes the Indexer = KnownObjects)
//
// # How it works
//
// A [DeltaFIFO] holds a line of keys and, for each key, the [Deltas] that
// happened to its object since the consumer last saw it:
//
//  1. The producer reports each change: Add, Update and Delete for watch
//     events, Replace with the full result of every (re)list, Resync on the
//     resync period. Each becomes a [Delta] (Added, Updated, Deleted,
//     Replaced, Sync) appended to its key's Deltas. A new key joins the end of
//     the line; a key already waiting keeps its place, so a busy object cannot
//     push the others back.
//  2. Two deletions in a row for one key are one deletion reported twice; they
//     collapse into the one that carries the real object. A Delete for a key
//     nobody knows (not queued, not in KnownObjects) is dropped: a relist
//     already reported it.
//  3. Replace also detects what disappeared while the watch was down: every
//     queued or known key the new list lacks gets a Deleted delta whose object
//     is a [DeletedFinalStateUnknown] tombstone, holding the last state seen
//     (possibly stale, possibly nil). Delete handlers must accept tombstones.
//  4. The consumer calls [DeltaFIFO.Pop] in a loop. Pop takes the head key off
//     the line with all its Deltas and runs the consumer's process function on
//     them, under the queue's lock, so the consumer's store (KnownObjects)
//     changes atomically with respect to Replace, Resync and Delete.
//  5. The first Replace is the initial list. Its keys are popped with
//     isInInitialList set, and [DeltaFIFO.HasSynced] turns true once the last
//     of them has been processed.
//
// [RealFIFO] is the design client-go's informers use today: one line of
// deltas instead of keys, every delta delivered on its own and in arrival
// order. It was introduced in client-go 1.33 as the beta feature
// InOrderInformers, which became GA and locked on in 1.36. It has two
// modes:
//
//   - the default, per-object mode: a relist becomes tombstones for what
//     vanished, then one Replaced delta per listed object; a resync one Sync
//     delta per known object;
//   - atomic mode (Options.AtomicEvents; client-go's AtomicFIFO feature,
//     beta and on by default since 1.36): a relist is one [ReplacedAll]
//     delta holding the whole list, a resync one [SyncAll] delta. The
//     consumer compares the list with its own store, replaces the store in
//     one step and only then tells its handlers, so no handler ever reads a
//     store that mixes two lists; and since the queue never reads the
//     consumer's store, it may release its lock while the consumer works
//     (Options.UnlockWhileProcessing).
//
// In either mode [RealFIFO.PopBatch] hands out a run of up to
// [DefaultBatchSize] deltas for distinct objects at once, for the consumer
// to apply under one store lock. Both types implement [Queue]; the
// difference shows best with the same events fed to all three designs
// (TestSameEventsClassicRealAndAtomicFIFO, docs/deltafifo.md).
//
// # The other queues of tools/cache
//
// [FIFO], the classic FIFO, is the DeltaFIFO's ancestor: a line of keys
// where each key holds only the newest state of its object. Its consumer
// pops every object that still exists once, in its newest version, but a
// deleted object is simply never popped, and an addition looks like an
// update. An informer must take deleted objects out of its cache and tell
// its delete handlers, so it needs the history a DeltaFIFO keeps
// (docs/deltafifo.md, "The classic FIFO and the Heap"). A Reflector can
// write to a FIFO; its Pop hands out objects, not Deltas, so it is not a
// [Queue].
//
// [Heap] is a keyed priority queue: one object per key, popped smallest
// first by a [LessFunc], an object that changes moving to its new place. It
// is not on the informer's path; it is here because client-go's tools/cache
// has it.
//
// # Guarantees
//
//   - All methods are safe for concurrent use. One producer and one consumer
//     is the intended use; two consumers could process two versions of one
//     object at the same time.
//   - Pop never hands out an empty Deltas, and for a given key hands out
//     deltas in the order they arrived.
//   - Pop's process function runs with the lock held: it must be quick and
//     must not call back into the queue, except HasSynced, which never takes
//     the lock. The one exception is an atomic RealFIFO with
//     UnlockWhileProcessing, which lets the lock go while fewer than two
//     full batches wait.
//   - PopBatch hands out each object at most once per batch, never batches a
//     ReplacedAll or SyncAll, and never lets a batch straddle the end of the
//     initial list.
//   - [DeltaFIFO.Close] wakes a blocked Pop. Pop first hands out whatever is
//     still queued, then returns [ErrFIFOClosed].
//   - Replace and Resync are atomic: a Pop never sees half of either.
//   - The Transformer runs once per object that arrives from outside; never on
//     a Sync delta (its object comes from the consumer's store) nor on a
//     tombstone. A Transformer error aborts that Add, Update, Delete or the
//     whole Replace and is returned.
//   - Replace, Resync, ListKeys and tombstones for known objects visit keys in
//     a fixed order (list order, line order, then sorted keys), so runs are
//     reproducible.
//   - Queued shows, as a copy, what Pop will hand out and in which order:
//     one Deltas per key for a DeltaFIFO, one Delta at a time for a RealFIFO
//     (queued.go). It is for tests and learning; client-go's tests read the
//     private fields for the same view.
//
// # Differences from client-go
//
// From tools/cache/delta_fifo.go and the_real_fifo.go:
//
//   - HasSynced turns true only after the process function for the last item
//     of the initial list has returned. client-go decrements its count when
//     the item is taken, so its synced signal fires while that item is still
//     being processed. Here HasSynced is also lock-free, so it does not wait
//     behind a slow handler.
//   - Replace is all or nothing: every listed object is keyed and transformed
//     before anything is queued. client-go can leave half a relist queued when
//     one object fails.
//   - Relists always emit Replaced deltas. client-go's EmitDeltaTypeReplaced
//     option (Sync for a relist when false) exists only for old callers;
//     every informer sets it, so it is not an option here.
//   - One constructor per type, [New] and [NewRealFIFO], sharing [Options].
//     In per-object mode [NewRealFIFO] accepts a nil KnownObjects instead of
//     panicking; it panics, as client-go does, on AtomicEvents with
//     KnownObjects and on UnlockWhileProcessing without AtomicEvents.
//   - An atomic Replace keys and transforms every object before queueing
//     the ReplacedAll, so a bad object fails the relist at once instead of
//     failing the consumer's store replace later.
//   - No Bookmark delta (client-go's EmitDeltaTypeBookmark, which lets an
//     atomic consumer record the store's resourceVersion on bookmarks).
//   - The pre-1.33 extras (AddIfNotPresent, ErrRequeue, List, Get) are not
//     on DeltaFIFO and RealFIFO: the queue only carries events.
//   - Pop with a nil process function returns an error instead of panicking.
//
// From tools/cache/fifo.go and heap.go:
//
//   - FIFO.Delete takes the key out of the line at once. client-go leaves
//     it for Pop to skip, so an object added again before that Pop gets its
//     old place back, and a deleted key of the initial list holds up
//     HasSynced until a Pop passes it.
//   - FIFO.Replace queues the list in list order (client-go: map order),
//     and a Replace that comes while the initial list is still being
//     delivered becomes the initial list; client-go keeps the old count,
//     which can leave HasSynced false with nothing queued.
//   - What client-go's FIFO tests read from its private items is public as
//     FIFO.Queued.
//   - A closed Heap returns ErrFIFOClosed, as every queue here does;
//     Heap.BulkAdd is all or nothing; NewHeap panics on a nil LessFunc
//     instead of at the first comparison.
//
// # Read next
//
// Run the examples: go test ./deltafifo -run Example -v. The consumer of this
// queue is the informer's process loop, which applies each Deltas to the
// indexer (steps 4 and 5). docs/deltafifo.md walks through the design with the
// tests that pin each behaviour.
package deltafifo
