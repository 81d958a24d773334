// Package samplecontroller is the subject of the demo: sample-controller's
// Foo, which owns an apps/v1 Deployment, seen from the controller's side of
// the diagram — steps 6 to 9 — and written with the practices of a careful
// operator.
//
//	informer(foos) ------6-----> GenerationChangedPredicate -> EnqueueRequestForObject ---------+
//	informer(deployments) --6--> EnqueueRequestForOwner(Foo, controller only) ------------------+
//	                                                                                           7 Add(demo/example)
//	                                                                                           v
//	                                               workqueue "foo" --8 Get--> FooReconciler.Reconcile
//	                                                                                   |
//	          client Get (the informers' caches) <---------9 Get Foo, Get Deployment---+
//	          API server <-- client: patch finalizers, create/patch Deployment, update status;
//	                         delete Deployment; Events (written by the event broadcaster)
//
// # How it works
//
// [New] builds a manager.Manager whose cache holds two shared informers,
// Foos and Deployments, and on it the "foo" controller (and, for fakeapi,
// the "deployment-simulator"). Both reconcilers use the Manager's split
// client (Manager.GetClient): Get reads a copy from the cache and sends no
// request; Create, Patch and UpdateStatus go to the API server. The Foo
// controller records Events with Manager.GetEventRecorderFor(EventSource).
// Follow one Foo, demo/example, asking for a Deployment "web" with 3
// replicas:
//
//  1. Step 6 (handler): the Foo informer's notification "add foos
//     demo/example" reaches the controller's Kind source. Its predicate,
//     GenerationChangedPredicate, lets creations through, and updates only
//     if metadata.generation changed — a spec change, not the controller's
//     own status writes.
//  2. Step 7 (enqueue): EnqueueRequestForObject puts the key demo/example on
//     the queue. Only the key: ten events while it waits are one Reconcile.
//  3. Step 8 (get key): the worker takes demo/example and calls
//     [FooReconciler.Reconcile].
//  4. Step 9 (lister get): Reconcile reads a copy of the Foo from the cache
//     (the client's Get), puts the finalizer on it, validates and defaults its spec, reads the
//     Deployment "web" from the other cache, finds none, and creates it with
//     a controller owner reference to the Foo. It writes the Foo's status:
//     0 of 3 available.
//  5. Back to step 6 from the other side: the Deployment informer reports
//     "add deployments demo/web". EnqueueRequestForOwner finds the
//     owner reference and enqueues the owner, demo/example — so any change
//     to the Deployment (scaled by hand, deleted, its status updated) brings
//     its Foo back to reconcile.
//  6. The [DeploymentSimulator] (standing in for kube-controller-manager)
//     sets the Deployment's status to 3 available; that update brings the
//     Foo back; Reconcile finds everything in place and writes the status
//     once more: 3 of 3, Ready. Its own status writes come back as Foo
//     updates with an unchanged generation, and step 6 drops them. Each
//     Reconcile that wrote records a Normal Event "Synced" on the Foo;
//     `kubectl get events` shows one Event, count 2.
//
// The practices, and where they are:
//
//   - Level triggering: Reconcile acts on the current state of both objects,
//     never on the event that woke it ([FooReconciler]).
//   - Never modify the cache: reads go through the client, whose Get
//     returns a deep copy; Reconcile works on it.
//   - Reads never cost a request: the client serves them from the cache
//     (TestReadsComeFromTheCacheNotTheAPI).
//   - Validate the spec: an invalid one gets Ready=False with reason
//     InvalidSpec, written once, a Warning Event InvalidSpec, and a
//     controller.TerminalError: no retry, no hot loop; the next edit of the
//     spec brings the Foo back.
//   - Defaults: a missing spec.replicas means [DefaultReplicas], applied in
//     memory (the CRD's schema default, testdata/foo-crd.yaml, applies it
//     on a real cluster).
//   - A finalizer ([FinalizerName]), added before anything is created;
//     on deletion its cleanup deletes the Deployment (with a UID
//     precondition) before the finalizer is removed. The owner reference is
//     the safety net: the garbage collector would delete the Deployment
//     anyway.
//   - A controller owner reference on the Deployment, and refusal to adopt
//     a Deployment the Foo does not control: Ready=False with reason
//     ResourceExists, a Warning Event ErrResourceExists (its count grows
//     with every retry), and retries with backoff until it is gone.
//   - Events for people: Warning InvalidSpec, ErrResourceExists, and
//     SyncFailed for any other error (409 Conflicts excepted); Normal
//     Synced only when a Reconcile changed something, so a Foo in sync
//     adds nothing. Recording never blocks the Reconcile.
//   - Status only through the status subresource, and only when it changed.
//   - GenerationChangedPredicate on Foos, so status writes do not loop.
//   - Errors retried with exponential backoff, 5ms doubling to 6 hours
//     ([DefaultRateLimiter]).
//   - Writes that never drop fields: the Deployment is changed only by merge
//     patches of the fields the controller owns, carrying the
//     resourceVersion they were computed from (409 Conflict if the object
//     moved; the retry reads it again).
//   - Read your own writes: the cache lags the server, and the Foo watch
//     drops status-only updates, so a Reconcile that read a Foo older than
//     the controller's own last write could wrongly find "status already
//     correct". The reconciler remembers the resourceVersions its writes
//     replaced, and when the cache hands out one of those, it works from its
//     own newer copy, or, if its write deleted the Foo (the removal of the
//     last finalizer), stops (see own_writes.go and
//     TestReconcileReadsItsOwnStatusWriteWhenCacheIsBehind). Unlike the
//     client's WaitForResourceVersion, which would hold the worker after
//     every write until the watch event arrives, this costs no wait.
//
// An [Observer] hears about every step — [StepHandler], [StepEnqueue],
// [StepGetKey], [StepListerGet], [StepAPIWrite], [StepReconcile],
// [StepBackoff] — and [Event.String] renders each as the line the demo
// prints. [API] chooses the server: fakeapi in-process, fakeapi or a real
// cluster over HTTP; typed or unstructured handles both work.
//
// # Running leader-elected
//
// With Options.Leader ([LeaderOptions]) the controller is one of several
// replicas that compete for one Lease (its Manager's leader election):
// every replica runs the cache, the one holding the Lease runs the Foo
// controller and the simulator, and when it dies another takes the Lease
// after LeaseDuration and carries on from a cache that is already full.
// With Warmup the standbys also start the controllers' sources, so their
// queues are full too.
//
// # Running sharded
//
// With Options.Shard ([ShardOptions]) the controller is one replica of a
// ring of replicas that share the Foos: a [sharding.Member] holds
// Leases on buckets of Foo uids, the Foo informer caches only the held
// buckets' Foos (its shard selector, widened and narrowed by the member
// through [sharding.InformerCache]), and the Foo controller runs
// behind the member's guard. Deployments the Foo controller creates carry
// their Foo's bucket in [BucketLabel], and the Deployment informer caches
// only the held buckets' Deployments: the same member sets its label
// selector, "informerlab.dev/bucket in (…)", through
// [sharding.InformerBucketLabelCache], and admits a bucket once both
// caches hold it. The DeploymentSimulator, playing a component outside the
// ring, is not guarded, but it shares that informer: each replica that runs
// it simulates its own buckets' Deployments. A Deployment of a Foo without
// the label (made by an unsharded run) is in no cache; the Foo controller's
// create meets it as AlreadyExists, and labels it if the Foo controls it.
// [SampleController.ShardMember] says which buckets a replica holds.
// A gained bucket's keys come to the Foo controller's queue from a
// [sharding.AdmitSource] as it is admitted. ShardOptions.Warm caches,
// besides, the buckets a replica would gain if another died, so that a
// takeover lists the gained buckets once, only to confirm them. Warm, each
// Deployment is cached, and simulated, by two replicas: their status writes
// are the same.
//
// # Guarantees
//
//   - Every Foo that is not being deleted and has a valid spec ends up with
//     the finalizer and, unless another owner's Deployment has the name, a
//     Deployment it controls running spec.replicas pods; its status reports
//     the Deployment's available replicas (with the simulator, or a real
//     Deployment controller).
//   - In sync, a Reconcile writes nothing.
//   - A Deployment the Foo does not control is never modified or deleted.
//   - A Foo is deleted only after its Deployment was deleted.
//   - When Run returns nil, every goroutine it started has stopped (the
//     Manager's shutdown timeout, 30 s, bounds the wait).
//   - A SampleController is safe for concurrent use. The Observer is
//     called from several goroutines at once and must be too.
//
// # Differences from sample-controller
//
//   - Written as a controller-runtime Reconciler on this project's Manager
//     and Builder, instead of a hand-rolled loop of handlers, workqueue and
//     workers (package controller shows that loop).
//   - Status has conditions and observedGeneration; the spec is validated
//     and defaulted; a finalizer cleans up; the rate limiter is capped at 6
//     hours instead of 1000 seconds; "Synced" is recorded only when a
//     Reconcile wrote something (upstream records it on every sync), and
//     failures other than ErrResourceExists are recorded too.
//   - The types are hand-written (Foo, and a subset of Deployment) with
//     hand-written deep copies, instead of generated clientsets, listers and
//     informers; the informers are the generic ones of package informer,
//     read through controller-runtime's kind of client.
//   - The Deployment's delete (with a UID precondition) goes through the
//     API handle: the client's Delete takes no options.
//   - The DeploymentSimulator plays kube-controller-manager on fakeapi.
//   - Admission webhooks, which sample-controller has none of: with
//     Options.WebhookServer the Manager serves FooDefaulter (replicas) and
//     FooValidator (validateFoo, and no Deployment another Foo controls),
//     and the CRD declares bounds, a pattern and a CEL transition rule. The
//     in-Reconcile validation stays for servers that have neither
//     (docs/admission.md).
//
// client-go files: sample-controller controller.go, main.go,
// pkg/apis/samplecontroller/v1alpha1/types.go,
// artifacts/examples/crd-status-subresource.yaml.
//
// # Read next
//
// Run the Example, which prints every write while one Foo is created,
// converges and is deleted:
//
//	go test ./samplecontroller -run ExampleNew -v
//
// then the Events it records, read back from the server:
//
//	go test ./samplecontroller -run 'TestEventWarns|TestSyncedEvent' -v
//
// then docs/samplecontroller.md, which walks one Foo through the system,
// each point with the test that shows it. Before this package along the
// pipeline: package controller (steps 7-9).
package samplecontroller
