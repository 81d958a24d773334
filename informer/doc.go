// Package informer is the middle of the client-go diagram: it pops changes
// off the queue (step 3), writes them to the cache (steps 4 and 5) and
// dispatches them to event handlers (step 6), as client-go's
// SharedIndexInformer does.
//
//	Reflector --2--> DeltaFIFO (or RealFIFO, or atomic RealFIFO)
//	                     |
//	                     | 3 Pop
//	                     v
//	  process loop --4--> Indexer --5--> thread-safe store
//	        |
//	        | 6 distribute            (one goroutine + unbounded buffer each)
//	        +----> listener ----> ResourceEventHandler A
//	        +----> listener ----> ResourceEventHandler B
//
// # How it works
//
// [NewSharedIndexInformer] builds an informer around a ListerWatcher. Its
// Run wires the pieces and runs them until the context ends:
//
//  1. A [reflector.Reflector] lists and watches (step 1) and writes every
//     change into a queue (step 2): a [deltafifo.DeltaFIFO] by default, or a
//     [deltafifo.RealFIFO], per-object or atomic, with [WithQueue]. For the
//     first two the queue's known objects are the informer's cache, so a
//     relist can tell which cached objects vanished; an atomic queue hands
//     the whole list over as one [deltafifo.ReplacedAll] and the process
//     loop compares it with the cache itself.
//  2. The process loop pops (step 3). For each delta, oldest first, it asks
//     the cache whether the key is there: if so it updates the cache and
//     calls OnUpdate(cached, new); if not, it adds and calls
//     OnAdd(new, isInInitialList); for a deletion it deletes and calls
//     OnDelete — the object may be a [deltafifo.DeletedFinalStateUnknown].
//     The cache is always written first (steps 4-5), the handlers told after
//     (step 6). From an in-order queue the loop pops a batch of changes to
//     distinct objects at once and writes it with one
//     [indexer.Store.Transaction]. A ReplacedAll replaces the whole cache
//     before any handler hears of it: deletions (as tombstones) first, then
//     the list in list order. A SyncAll re-delivers every cached object.
//  3. "Calls" means: a notification is appended to the buffer of every
//     registered handler (one processor listener each). The append never
//     blocks; each listener has a goroutine that calls its handler, one
//     notification at a time, in order. A slow handler lets its buffer grow
//     (ResourceEventHandlerRegistration.Backlog) and delays no one else.
//  4. An update whose old and new objects have the same resourceVersion is a
//     resync: a periodic Resync of the queue, or a relist that found the
//     object unchanged. It goes only to listeners flagged as due a resync.
//     Listeners start flagged, and only the resync check (every resync
//     period of the informer) re-evaluates the flags.
//  5. When every item of the initial list has been processed the informer
//     has synced: HasSynced turns true and Done closes. Each registration
//     syncs once the informer has and its handler has returned from every
//     initial OnAdd.
//  6. A handler added to a running informer first gets every cached object
//     as OnAdd(obj, true), exactly once, then the live changes.
//
// The same loop runs without the shared processor too: [New] runs a
// [Config] (a queue, a ListerWatcher and your Process function), and
// [NewInformerWithOptions] adds a cache and one handler called directly on
// the loop — the diagram's Informer box alone, client-go's controller.go.
// Use NewInformerWithOptions for that; NewInformer and its siblings are
// client-go's older spellings of it. Most programs want the
// SharedIndexInformer.
//
// [SharedInformerFactory] hands out one informer per resource, so that a
// program shares watches and caches, and [Lister] reads a cache by type.
// [NewTypedSharedIndexInformer] is the other typed view, for the write
// side: handlers that get a T and a [deltafifo.DeletedObject] instead of
// any ([TypedResourceEventHandler], typed_handler.go) and index functions
// that take a T; Lister reads, the typed informer registers.
//
// [InformerName] (informer_name.go) is the process-wide registry of
// informer names for metrics: a name is reserved once per process, and
// under it each resource once; [WithIdentifier] names an informer by its
// identity, [WithInformerName] every informer of a factory.
// [WaitForCacheSync] waits for informers and registrations on their Done
// channels, without polling; [WaitFor] does too, and logs which ones it is
// still waiting for.
//
// # Guarantees
//
//   - The cache is written before any handler hears of the change.
//   - Per handler, calls are sequential and, per object, in order; each
//     handler sees every object state the cache held, except resync-style
//     updates it was not due for. Different handlers are not coordinated.
//   - After a relist, an object that vanished while the watch was down is
//     deleted from the cache and reported with a tombstone.
//   - A handler that panics is logged and counted, not fatal.
//   - When Run returns, every goroutine the informer started has exited.
//   - Every exported type is safe for concurrent use.
//   - The registry of InformerNames is process-wide, the package's one
//     global state: a test that reserves a name releases it.
//   - Objects in the cache and in notifications are shared: never mutate them.
//   - After SetShardSelector or SetLabelSelector, the cache converges to the
//     new selection through one relist: handlers hear OnDelete for what left
//     and OnAdd for what joined.
//
// # Differences from client-go
//
//   - A handler panic is recovered, logged with its stack and counted
//     (Panics) and the next notification is delivered; client-go re-panics
//     by default (utilruntime.HandleCrash), ending the process.
//   - A listener is one goroutine over a mutex-guarded ring buffer, not two
//     goroutines joined by channels (processorListener.pop/run), and the
//     buffer shrinks back after a burst. Since adding to a buffer never
//     blocks, the processor needs no "wait until listeners started" step.
//   - WaitForCacheSync and [WaitFor] take [DoneChecker]s and wait on their
//     channels; a plain function is passed as an [InformerSynced] and is
//     polled, as client-go polls every function. A DoneChecker has
//     HasSynced besides client-go's Name and Done, and the informer, a
//     registration and a Controller are DoneCheckers themselves. WaitFor
//     logs to slog.Default(), not to a logger carried by the context.
//   - A deletion of an object the cache does not hold reaches no handler.
//     The in-order RealFIFO can hand the process loop a second deletion of
//     an object already gone (a relist's tombstone and the watch's DELETED);
//     client-go calls OnDelete again, here handlers hear of it once.
//   - The informer syncs only after the last initial item has been
//     processed (client-go's DeltaFIFO channel closes a moment earlier).
//   - Metrics ([WithMetricsProvider]) are per informer, not set
//     process-wide, and count what an operator graphs: per-handler events, backlog and panics; list and watch requests,
//     relists, watch restarts and the last resourceVersion. No queue depth,
//     processing latency or store resourceVersion.
//   - The cache mutation detector ([WithCacheMutationDetector], or the
//     KUBE_CACHE_MUTATION_DETECTOR environment variable) reports each
//     mutated object once, with its key and a unified diff, to a function
//     of your choice; only without one does it panic as client-go's does.
//   - The three queues are chosen per informer ([WithQueue]), not by
//     process-wide feature gates; batch processing is always on for the
//     in-order queues (client-go's InOrderInformersBatchProcess gate), and the
//     atomic queue always unlocks while processing (UnlockWhileProcessingFIFO).
//   - A ReplacedAll that lists one key twice is an add and then an update
//     (client-go reports two adds); deletions are told in key order.
//   - [New] reports an incomplete [Config] from Run instead of panicking
//     on first use, and a panic in Process leaves Run only after the
//     Reflector has stopped and the queue is closed.
//   - The typed layer is thin and exported whole: the adapter from a typed
//     to an untyped handler is [UntypedResourceEventHandler], for the
//     untyped entry points too. A typed handler that gets an object of
//     another type panics with an error naming both types, which the
//     shared informer counts as any handler panic; its metrics are named
//     after the typed handler, not the adapter.
//   - Releasing an InformerName whose name has been reserved again leaves
//     the new holder registered; client-go frees the name. An identity that
//     is not reserved is reported by the informer it is given to (when it
//     has metrics), not by WithResource, and there is no
//     ResetInformerNamesForTesting: tests release what they reserve.
//   - The queue, the logger, the name, the metrics and the Reflector's
//     options are chosen with functional options ([WithQueue], [WithLogger],
//     [WithName], [WithMetricsProvider], [WithReflectorOptions]) instead of an
//     options struct and constructor variants.
//
// client-go files: tools/cache/controller.go, shared_informer.go,
// synctrack/synctrack.go, informers/factory.go, listers.go.
//
// # Read next
//
// Run the walkthrough, which follows one object through steps 1-6:
//
//	go test ./informer -run Walkthrough -v
//
// and the Examples in example_test.go (ExampleNewInformerWithOptions shows
// the Informer box alone, ExampleWaitFor what WaitFor logs,
// ExampleNewTypedSharedIndexInformer the typed views, ExampleNewInformerName
// the registry of names). docs/informer.md explains resync
// versus relist, tombstones and per-handler sync. Next along the pipeline:
// package workqueue (steps 7-8).
package informer
