// Package controller is the bottom of the client-go diagram: event handlers
// enqueue keys (step 7), workers take them off a workqueue (step 8) and call
// a Reconciler, which reads the object for its key from the cache (step 9).
// It is a small controller-runtime: Reconciler, Controller, sources, event
// handlers, predicates, a Manager with leader election, a Builder, and a
// finalizer helper.
//
//	informer --6 OnAdd/OnUpdate/OnDelete--> Kind source
//	                                           | predicates (drop uninteresting events)
//	                                           | EventHandler (which key?)
//	                                           v
//	               Channel source ------7 Add--> workqueue (rate limiting)
//	                                           |
//	                                           | 8 Get (never the same key twice at once)
//	                                           v
//	                          worker x MaxConcurrentReconciles
//	                                           |
//	                                           | Reconcile(ctx, Request{namespace, name})
//	                                           v
//	                         Reconciler --9 Get object for key--> lister (cache)
//
// # How it works
//
// Level, not edge. An informer tells handlers about edges: "a was added",
// "b changed from v1 to v2". A controller here throws the edge away at once:
// a handler computes a key — a [Request], namespace and name — and puts it on
// the queue. The Reconciler gets only the key, reads the object's current
// state from the cache, and makes the world match it. Ten changes to one
// object while it waits in the queue become one Reconcile of the latest
// state; a missed event is harmless, because the next one (or a resync)
// carries the same key. This is level triggering, and it is what makes
// controllers robust: the Reconciler never needs to know what happened, only
// what is.
//
// A [Controller]'s life:
//
//  1. [New] builds it around a [Reconciler]; [Controller.Watch] adds sources.
//     [Kind] registers a handler on an informer; [Channel] reads events from
//     outside the cluster.
//  2. [Controller.Start] starts the sources and waits until each informer has
//     synced and each source's handler has seen the whole initial list, so the
//     first Reconcile runs with every existing object already queued.
//  3. Step 6 to 7: for each notification a source builds an event
//     ([CreateEvent], [UpdateEvent], [DeleteEvent], [GenericEvent]), runs its
//     [Predicate]s, and hands what passes to its [EventHandler], which enqueues
//     Requests: the object's own ([EnqueueRequestForObject]), its owner's
//     ([EnqueueRequestForOwner]) or any a function names
//     ([EnqueueRequestsFromMapFunc]).
//  4. Step 8: MaxConcurrentReconciles workers loop in processNextWorkItem:
//     Get a Request, Reconcile it, apply the outcome table, Done.
//  5. Step 9 happens inside the Reconciler: it reads the object from a lister
//     (NotFound means it was deleted: clean up or do nothing).
//  6. When Start's context ends the queue shuts down, each worker finishes its
//     Reconcile, and Start returns.
//
// The outcome table, applied after every Reconcile:
//
//	Reconcile returned             the Request                                  why
//	error                          AddRateLimited (exponential backoff);        transient failure: retry, slower each time
//	                               a RequeueAfter with it is ignored (logged)
//	TerminalError(err)             Forget; not requeued                         retrying cannot help; the next edit will
//	Result{RequeueAfter: d}, nil   Forget, then AddAfter(d)                     poll: come back in d, with backoff reset
//	Result{}, nil                  Forget                                       done until the next event
//
// A [Manager] runs controllers with what they share:
//
//  1. /healthz and /readyz on a loopback address, if asked for, and admission
//     webhooks on a [WebhookServer], if given one;
//  2. the cache: one shared informer per resource ([Manager.GetInformer]),
//     started and waited for before anything else;
//  3. runnables that need no leadership;
//  4. leader election on a coordination.k8s.io/v1 Lease, if configured, and
//     once leading (at once without it) the controllers.
//
// It stops in reverse order within a timeout: controllers, then the lease is
// released, other runnables, the cache, the probes. A leader that cannot
// renew its lease within RenewDeadline stops its controllers and Start
// returns "leader election lost"; since RenewDeadline < LeaseDuration, it has
// stopped before any other candidate may take the lease. A [Builder] wires a
// controller into a Manager in a few calls (For, Owns, Watches,
// WithEventFilter, Named, Complete), and a [Finalizer] lets a Reconciler
// clean up before its object is deleted. [ValidatingWebhook] and
// [DefaultingWebhook] serve a [Validator] or a [Defaulter] as an admission
// webhook ([Webhook]): the API server asks them before it stores a write.
//
// The Manager also hands reconcilers what they use: [Manager.GetClient], a
// [Client] that reads from the cache (starting a kind's informer on first
// use) and writes to the API server; [Manager.GetAPIReader] for the rare
// read that must bypass the cache; and [Manager.GetEventRecorderFor], an
// [EventRecorder] whose Events an [EventBroadcaster] writes from its own
// goroutine. A read from the cache right after a write can be stale: a
// Reconcile that must see its own write calls [Client.WaitForResourceVersion].
//
// # Sharding: many replicas, one owner per key
//
// Leader election makes one replica do all the work while the others wait.
// When one replica's cache or reconcile rate is not enough, a ring of
// replicas can share the work instead: each caches and reconciles only its
// share of the objects, and no key is ever reconciled by two of them at
// once. A [ShardMember] per replica runs the protocol; [ShardMember.Guard]
// wraps the Reconciler.
//
// The pieces:
//
//   - B fixed buckets (ShardOptions.Buckets, [DefaultShardBuckets] = 16):
//     bucket i holds the objects whose uid's 64-bit FNV-1a hash h has
//     i·2⁶⁴/B ≤ h < (i+1)·2⁶⁴/B ([BucketOf]). It is the hash kube-apiserver
//     applies to a shardSelector, so [ShardSelectorFor] turns a set of
//     buckets into the expression a sharded informer sends and the server
//     filters with (or the informer re-checks, if the server ignores it).
//   - A member Lease per replica, <ring>-member-<identity>. The live members
//     are those whose Lease changed less than its duration ago.
//   - The ring: from the live members every member computes the same bucket
//     → member map by rendezvous hashing ([BucketOwners]), so a member joining
//     or leaving moves only about B/N buckets. The ring says who should own
//     a bucket.
//   - A Lease per bucket, <ring>-bucket-<i>, says who may. Members that
//     briefly disagree about the ring cannot both hold it. Every Lease of a
//     ring carries the label [RingLabel] (informerlab.dev/ring=<ring>), so
//     one labelled list shows a member the whole ring, and shows a person
//     who holds which bucket.
//
// Every RetryPeriod a member renews its member Lease, lists the ring's
// Leases, computes the map, renews the bucket Leases it holds, and then:
//
//  1. Gain. For a bucket the map gives it: acquire the bucket's Lease (a free
//     one at once, a held one only once it has not changed for LeaseDuration),
//     then widen the cache's selector ([ShardCache]; [InformerShardCache] for
//     an informer: its Reflector relists, and DeltaFIFO.Replace turns the
//     gained objects into adds), wait until the cache holds the bucket's
//     objects, and only then admit the bucket's keys. Keys that arrive
//     earlier, from that very relist, are requeued, not run: a reconcile
//     from a cache that has not caught up could undo the last owner's work.
//  2. Graceful release. For a held bucket the map gives to another: stop
//     admitting its keys; wait until its in-flight reconciles reach 0 (still
//     renewing the Lease; after ReleaseTimeout keep the Lease and wait
//     again); release the Lease (holder cleared), so the new owner takes it
//     at its next try; narrow the selector (the lost objects become
//     deletes). A member that stops does this for every bucket, then
//     releases its member Lease.
//  3. Crash. A member that stops renewing loses nothing at once. The others
//     drop it from the ring when its member Lease has not changed for
//     LeaseDuration, and take each of its buckets when that bucket's Lease
//     has not changed for LeaseDuration, by their own clocks.
//  4. The guard. A key runs only if its bucket (from the cached object's uid,
//     [BucketFromCache]) is held, synced, not being released, and its Lease
//     was renewed less than RenewDeadline ago on the local monotonic clock;
//     it counts the bucket's in-flight reconciles. Since RenewDeadline <
//     LeaseDuration, a member whose renewals stopped (crashed, partitioned,
//     paused) refuses new keys before anyone else may take its buckets.
//     The check and the count are one [BucketGuard], under one lock, so a
//     release that has begun sees every reconcile that was admitted.
//
// Children. A shard selector hashes an object's own uid, so it cannot put
// a child (a Foo's Deployment) in its owner's bucket. The owner's
// controller labels each child with the owner's bucket, and the children's
// informer is selected by that label: [InformerBucketLabelCache] turns the
// member's shard selector back into buckets ([BucketsOfShardSelector]) and
// sets the label selector "<label> in (3,4,9)" ([BucketLabelSelector]);
// [ShardCaches] lets one member drive the owners' cache and the children's,
// and admit a bucket only once both hold it.
//
// docs/sharding.md walks through these steps with a test for each;
// labs/8-sharding has you write the BucketGuard.
//
// The honest limit: a Lease is no fence. The guard checks at the start of a
// reconcile; a replica paused in the middle of one (a long GC, SIGSTOP, a
// frozen VM) resumes and finishes it after its Lease has passed to another,
// and nothing in the Lease stops its writes. What stops them is the API
// server's optimistic concurrency: write with the resourceVersion you read
// (Update, not a blind Patch), so a write based on a read from before the
// new owner's writes fails with a Conflict; and give children deterministic
// names, so a second create fails with AlreadyExists. client-go's leader
// election has the same limit and says so. The test
// TestShardLeaseIsNoFencePausedWriteStoppedOnlyByResourceVersion shows a
// paused replica's write refused with a Conflict, and the same write sent
// blind accepted.
//
// # Guarantees
//
//   - A Request is never reconciled by two workers at once; events for it
//     during a Reconcile make it run once more afterwards.
//   - The first Reconcile happens only after every [SyncingSource] has synced,
//     or Start fails after CacheSyncTimeout with an error naming the source.
//   - Every Request a worker takes is marked Done, whatever the Reconciler did,
//     including panicking (recovered into a retried error unless RecoverPanic
//     is false).
//   - When Start returns, every worker has exited. A Kind source removes its
//     informer handler when the controller stops; a Channel source's goroutine
//     exits when the controller stops or the channel closes.
//   - With leader election, a Manager's controllers run only while it holds
//     the lease, and stop before it could expire for anyone else.
//   - With a ring of [ShardMember]s and guarded Reconcilers, a bucket is
//     admitted by at most one member at any instant (as long as no clock
//     runs faster than another by LeaseDuration/RenewDeadline or more), so
//     no key is reconciled by two members at once except a reconcile already
//     in flight when its member was paused (see the limit above).
//   - When Manager.Start returns without a shutdown-timeout error, every
//     goroutine it started has exited.
//   - Client reads never send a request and return deep copies (GetShared
//     and ListShared excepted); its writes always go to the API server.
//   - Recording an Event never blocks: what does not fit the buffer is
//     dropped and counted, and the buffer is flushed on shutdown, within
//     FlushTimeout, after the controllers have stopped.
//   - Every exported type is safe for concurrent use, except Builder (use it
//     from one goroutine) and Finalizer's target object (pass a copy).
//     Objects in events are the cache's: never modify them.
//
// # Differences from controller-runtime
//
//   - One package instead of reconcile, handler, predicate, source,
//     controller: hence EventHandlerFuncs and PredicateFuncs for the two
//     Funcs types. No generic Typed* variants: requests are always [Request]
//     and objects anything with metadata ([Object]).
//   - The queue is the classic rate-limiting workqueue, not the priority queue
//     controller-runtime uses by default since v0.23. It is the queue of
//     sample-controller and of the outcome table as usually taught, and it
//     cannot starve: the priority queue hands initial-list and resync events
//     out last, and under steady load may never reach them.
//     [workqueue.PriorityQueue] exists for comparison.
//   - Result has no Requeue field (deprecated upstream): return an error for a
//     retry with backoff, or set RequeueAfter.
//   - A TerminalError also calls Forget, so no failure count is kept for a
//     Request that will not be retried.
//   - When stopping, workers do not drain the queue: Requests not yet taken
//     are dropped (upstream's classic queue hands them out to Reconcile with a
//     cancelled context).
//   - Kind takes the informer itself instead of looking it up in a cache, and
//     registers on it synchronously: no polling goroutine. Channel can be
//     started once (its events can be read only once) and needs no buffer
//     goroutine.
//   - Wiring is explicit: no injection into sources, handlers or reconcilers.
//     The Manager asks a runnable one question, NeedLeaderElection, and
//     nothing else.
//   - Leader election: no jitter on retries (exact timings in tests), and the
//     lease is always released on a clean stop (client-go's ReleaseOnCancel),
//     only after the controllers have stopped, even when the last renewal's
//     answer was lost (a Conflict makes it read the lease again; client-go
//     gives up). On a lost lease the Manager stops its controllers and
//     returns, instead of exiting the process.
//   - The Manager stops its runnables in exact reverse start order
//     (controllers before the other runnables; upstream stops the others
//     first), and waits for its cache to sync for at most CacheSyncTimeout.
//   - Controller names are unique per Manager, not per process (no package
//     state). Builder.Owns always follows the controller owner reference
//     only, and the owner is taken to be namespaced
//     ([OwnerIsClusterScoped] exists for Watches); the Builder uses no
//     RESTMapper.
//   - The Client finds a kind's resource among the Manager's informers or
//     in a RESTMapper it is given (no discovery), and waits for its cache
//     per object (WaitForResourceVersion) rather than per resource as
//     Kubernetes 1.36's controllers do. The EventBroadcaster counts
//     repeats but neither aggregates similar messages nor rate-limits.
//
// client-go files: controller-runtime pkg/reconcile, pkg/handler,
// pkg/predicate, pkg/source, pkg/internal/source, pkg/internal/controller,
// pkg/manager, pkg/builder, pkg/controller/controllerutil, pkg/client;
// client-go tools/leaderelection, tools/record; sample-controller
// controller.go.
//
// # Read next
//
// Run the Example, which follows two ConfigMaps through steps 6 to 9:
//
//	go test ./controller -run ExampleController -v
//
// then the outcome table, row by row, in exact fake time:
//
//	go test ./controller -run 'TestErrorRequeues|TestTerminalError|TestRequeueAfter|TestSuccessForgets' -v
//
// and the stale read after a write, then its fix:
//
//	go test ./controller -run TestWalkthroughStaleReadAfterWrite -v
//
// A sharded replica wired into a Manager, alone in its ring:
//
//	go test ./controller -run Example_shardedManager -v
//
// The sharded ring, step by step: three members share sixteen buckets, a
// graceful leave, a crash and a pause, scaling 3 → 4 → 3, the guard, and
// replicas whose informers cache only their buckets, and the Lease's limit:
//
//	go test ./controller -run 'TestShardRing|TestShardGuard|TestShardedReplicas|TestInformerShardCache|TestShardLease' -v
//
// The children's cache, by label:
//
//	go test ./controller -run 'TestBucketsOfShardSelector|TestBucketLabelSelector|TestInformerBucketLabelCache|TestShardCaches' -v
//
// docs/controller.md explains level triggering, keys not objects, status
// hot loops, finalizers, leader election, the split client and Events,
// each with the test that shows it. Before this package along the
// pipeline: package workqueue (steps 7-8) and package informer (steps 3-6).
package controller
