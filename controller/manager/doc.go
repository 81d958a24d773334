// Package manager runs controllers with what they share: one cache of
// informers (steps 1 to 5 for every resource they watch), the health
// probes, leader election, the webhook server, and the Client a Reconciler
// reads and writes with (step 9).
//
//	Manager.Start
//	  1 probes (/healthz, /readyz) and the webhook server, if configured
//	  2 the cache: one SharedIndexInformer per resource, synced first
//	  3 runnables that need no leadership
//	  4 leader election (if configured), then the controllers
//	        |
//	        v
//	  Reconcile --Client.Get/List--> the cache (never the API server)
//	            --Client.Create/Update/Patch/Delete--> the API server
//
// # How it works
//
// A [Manager] starts what it was given in this order, and stops it in
// exact reverse within GracefulShutdownTimeout:
//
//  1. /healthz and /readyz on a loopback address, if asked for
//     ([Manager.HealthHandler] serves them on a server of your own), and
//     admission webhooks on an [admission.Server], if given one;
//  2. the cache: one shared informer per resource ([Manager.GetInformer]),
//     started and waited for (CacheSyncTimeout) before anything else;
//  3. runnables that need no leadership ([LeaderElectionRunnable]);
//  4. leader election on a coordination.k8s.io/v1 Lease, if configured
//     ([leaderelection.Options]), and once leading (at once without it) the
//     controllers.
//
// A leader that cannot renew its lease within RenewDeadline stops its
// controllers and Start returns "leader election lost"; since RenewDeadline
// < LeaseDuration, it has stopped before any other candidate may take the
// lease.
//
// The Manager also hands reconcilers what they use: [Manager.GetClient], a
// [Client] that reads from the cache (starting a kind's informer on first
// use) and writes to the API server; [Manager.GetAPIReader] for the rare
// read that must bypass the cache; and [Manager.GetEventRecorderFor], a
// [recorder.EventRecorder] whose Events a [recorder.EventBroadcaster] writes
// from its own goroutine. A read from the cache right after a write can be
// stale: a Reconcile that must see its own write calls
// [Client.WaitForResourceVersion] (or [Client.WaitForDeletion]).
//
// The Client finds a kind's resource among the Manager's informers or in a
// [RESTMapper] it is given; objects may be typed (registered in the
// Manager's Scheme) or unstructured.
//
// # Guarantees
//
//   - With leader election, the controllers run only while the Manager holds
//     the lease, and stop before it could expire for anyone else; the lease
//     is released on a clean stop, only after the controllers have stopped.
//   - When Start returns without a shutdown-timeout error, every goroutine it
//     started has exited.
//   - Client reads never send a request and return deep copies (GetShared
//     and ListShared excepted); its writes always go to the API server.
//   - Recording an Event never blocks (see package recorder); the Events
//     are flushed on shutdown, after the controllers have stopped.
//   - Manager and Client are safe for concurrent use.
//
// # Differences from controller-runtime
//
//   - The Manager is a struct, not an interface, and takes a function that
//     makes ListerWatchers (or resource clients), not a rest.Config.
//   - It stops its runnables in exact reverse start order (controllers
//     before the other runnables; upstream stops the others first), and
//     waits for its cache to sync for at most CacheSyncTimeout.
//   - The Manager asks a runnable one question, NeedLeaderElection, and
//     nothing else: no injection.
//   - On a lost lease the Manager stops its controllers and returns, instead
//     of exiting the process.
//   - The Client lives here, beside the cache it reads, rather than in a
//     package of its own: it cannot exist without a Manager. It uses no
//     discovery, and waits for its cache per object
//     (WaitForResourceVersion) rather than per resource as Kubernetes 1.36's
//     controllers do.
//
// client-go files: controller-runtime pkg/manager, pkg/cluster, pkg/client,
// pkg/cache, pkg/healthz.
//
// # Read next
//
// The Example reads through the Client and records an Event:
//
//	go test ./controller/manager -run ExampleManager_GetClient -v
//
// the stale read after a write, then its fix:
//
//	go test ./controller/manager -run TestWalkthroughStaleReadAfterWrite -v
//
// and the lifecycle:
//
//	go test ./controller/manager -run 'TestManagerStartsInOrderAndStopsInReverse|TestManagerShutdownIsBoundedByTimeout' -v
//
// Next: package builder, which wires a controller into a Manager; package
// leaderelection for the Lease it runs on.
package manager
