// Package workqueue is the queue between event handlers and workers: steps 7
// (enqueue key) and 8 (get key) of the diagram.
//
//	ResourceEventHandler -- 7 Enqueue key --> workqueue -- 8 Get key --> worker -> Reconcile
//	                                          |  Add, AddAfter, AddRateLimited
//	                                          |  Get ... Done, Forget
//
// The queue holds keys ("namespace/name"), never objects: a worker reads the
// current object for its key from the informer's cache (step 9) when its turn
// comes, so however many events arrived meanwhile, it reconciles the latest state
// once.
//
// # How it works
//
// Each layer adds one interface, in its own file:
//
//   - [Interface] (queue.go): Add, Get, Done and shutdown. Every item the queue
//     knows is dirty (added since it was last handed out), processing (handed out,
//     no Done yet), or both; a FIFO holds the items that are dirty only.
//   - [DelayingInterface] (delaying_queue.go, waiting.go): AddAfter. Delayed items
//     wait in a min-heap on ready time; one goroutine, started by the first delayed
//     add, sleeps until the earliest is due and then adds it.
//   - [RateLimitingInterface] (rate_limiting_queue.go): AddRateLimited, Forget and
//     NumRequeues, asking a [RateLimiter] (default_rate_limiters.go,
//     bucket_rate_limiter.go) how long a failed item waits.
//   - [PriorityQueue] (priority_queue.go): the same, with a priority per item.
//   - [MetricsProvider] (metrics.go): client-go's seven metrics, when asked for.
//
// Beside the queues, [ParallelizeUntil] (parallelizer.go) fans one batch of
// independent pieces of work out to a few goroutines and waits for them.
//
// A controller's worker runs this loop (see Example):
//
//  1. key, shutdown := queue.Get(); stop if shutdown.
//  2. Reconcile key, reading the object from the cache.
//  3. On success queue.Forget(key); on failure queue.AddRateLimited(key).
//  4. queue.Done(key), always, whatever happened.
//
// # Guarantees
//
//   - Fair: items are handed out in the order they were added (the priority queue:
//     by priority, then in order).
//   - Stingy: adds of an item that is waiting collapse into one, and an item is
//     never handed to two workers at once.
//   - An item added while it is being processed is handed out again after Done.
//   - After ShutDown, Get still hands out what was waiting, then reports shutdown;
//     ShutDownWithDrain also waits until nothing is waiting and nothing is in
//     flight. Delayed items not yet due at shutdown are dropped.
//   - Every queue and limiter is safe for concurrent use. Constructors start no
//     goroutine; the first delayed add starts one waiting loop, the first Get with
//     a MetricsProvider starts one refresh loop, and ShutDown (or
//     ShutDownWithDrain) stops both and waits for them.
//   - AddAfter only takes a lock; it never waits for the waiting loop. The waiting
//     loop has no heartbeat: it wakes only when an item is due or an earlier one
//     arrives.
//   - Without a MetricsProvider, Add, Get and Done allocate nothing once the queue
//     has grown to its working size.
//
// # Differences from client-go
//
// Generic names only (New, not NewTyped; no untyped Interface), configured by
// [Option] values. Upstream files: client-go util/workqueue/{queue.go,
// delaying_queue.go, rate_limiting_queue.go, default_rate_limiters.go, metrics.go},
// controller-runtime pkg/controller/priorityqueue/priorityqueue.go.
//
//   - ShutDownWithDrain waits for queued items as well as in-flight ones; upstream
//     returns once nothing is in flight, even with keys still queued. Several
//     concurrent drains all wake (upstream signals one).
//   - Done for an item that is not being processed does nothing; upstream can queue
//     the item twice.
//   - AddAfter never blocks; upstream sends to the waiting loop over a channel of
//     capacity 1000 and blocks when it is full. The waiting loop has no 10-second
//     heartbeat and starts with the first delayed add, not in the constructor.
//   - The token bucket is written here as one timestamp (no golang.org/x/time), and
//     NewBucketRateLimiter rejects a qps or burst that would mean infinite delays.
//   - With a MetricsProvider, metrics are recorded whatever the queue's name.
//   - The priority queue keeps the shutdown promises of the other queues: Get hands
//     out ready items after ShutDown and ShutDownWithDrain drains (controller-runtime
//     stops handing out at once and does not drain). Its AddWithOpts is
//     synchronous: Len and Get see an add at once.
//   - Time is the standard time package; tests use testing/synctest, not a fake
//     clock.
//
// # Read next
//
// Run the walkthrough: go test ./workqueue -run Example -v. The chapter
// docs/workqueue.md explains keys, Forget, Done and AddRateLimited, and the
// priority queue's starvation risk. Next along the pipeline: package controller,
// whose workers run the loop above around a Reconciler.
package workqueue
