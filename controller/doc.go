// Package controller is the bottom of the client-go diagram: event handlers
// enqueue keys (step 7), workers take them off a workqueue (step 8) and call
// a Reconciler, which reads the object for its key from the cache (step 9).
// It is the core of a small controller-runtime: Reconciler, Controller and
// its workers, sources, event handlers, the Predicate interface, and a
// finalizer helper; the packages under it add the rest.
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
// # The packages under it
//
// This package is the core of the box: steps 6 to 9 and nothing else. What
// a controller needs around it lives one package down, one concept each,
// with arrows only downward (a test in internal/docscheck fails on an
// upward import):
//
//	                builder            (wires a controller into a Manager)
//	               /       \
//	         manager       sharding    (run controllers; split them over replicas)
//	        /   |   \        |
//	admission recorder leaderelection (webhooks; Events; one Lease, one holder)
//	        \   |   /
//	   controller  <-  predicate       (this package: steps 6-9; event filters)
//
// One line each:
//
//   - [github.com/informerlab/informerlab/controller/predicate]: the library
//     of predicates (generation changed, labels, And/Or/Not). This package
//     defines the [Predicate] interface a source calls; predicate implements it.
//   - [github.com/informerlab/informerlab/controller/manager]: the Manager
//     that runs controllers with a shared cache, probes, leader election and
//     webhooks, and the split Client a Reconciler reads and writes with.
//   - [github.com/informerlab/informerlab/controller/builder]: For, Owns,
//     Watches, Complete: a controller wired into a Manager in a few calls.
//   - [github.com/informerlab/informerlab/controller/leaderelection]: a
//     coordination.k8s.io/v1 Lease taken and renewed by one candidate.
//   - [github.com/informerlab/informerlab/controller/recorder]: Events
//     about objects, written by a broadcaster off the reconcile path.
//   - [github.com/informerlab/informerlab/controller/admission]: admission
//     webhooks (defaulting and validating) and the TLS server for them.
//   - [github.com/informerlab/informerlab/controller/sharding]: a ring of
//     replicas, each caching and reconciling only its buckets, with a guard
//     that never lets two replicas reconcile one key.
//
// A [Finalizer] lets a Reconciler clean up before its object is deleted.
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
//   - Every exported type is safe for concurrent use, except Finalizer's
//     target object (pass a copy).
//     Objects in events are the cache's: never modify them.
//
// # Differences from controller-runtime
//
//   - One package for reconcile, handler, source and controller, the four
//     that name steps 6 to 9 (hence EventHandlerFuncs, beside predicate.Funcs,
//     for the two Funcs types); the predicate library, the manager and the
//     rest are packages under it. No generic Typed* variants: requests are always [Request]
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
//   - Controller names are unique per Manager, not per process (no package
//     state). [OwnerIsClusterScoped] exists for owners that are not
//     namespaced; no RESTMapper is consulted.
//
// client-go files: controller-runtime pkg/reconcile, pkg/handler,
// pkg/source, pkg/internal/source, pkg/internal/controller,
// pkg/controller/controllerutil; sample-controller controller.go.
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
// and a level-triggered controller folding ten events into one Reconcile:
//
//	go test ./controller -run TestManyEventsForOneObjectBecomeOneReconcileOfLatestState -v
//
// Then each package under this one, starting with the manager.
//
// docs/controller.md explains level triggering, keys not objects, status
// hot loops, finalizers, leader election, the split client and Events,
// each with the test that shows it. Before this package along the
// pipeline: package workqueue (steps 7-8) and package informer (steps 3-6).
package controller
