// Command demo is the first thing to run in informerlab: it plays a scripted
// story on an embedded fake API server, with a Foo controller
// (sample-controller's) on top of the informers and the workqueue, and
// narrates every object as it crosses the client-go diagram, one line per
// step:
//
//	[1 list&watch] [2 → DeltaFIFO] [3 pop] [4/5 indexer] [6 handler]
//	[7 enqueue] [8 get key] [9 lister get] [reconcile] [API write]
//
// # How it works
//
//  1. An embedded fakeapi server registers Foos and Deployments and is
//     seeded with Foo default/alpha and its Deployment.
//  2. Three informers start (Foos and Deployments for the Foo controller,
//     Deployments for a simulator that plays kube-controller-manager's
//     Deployment controller), with the Foo controller and the simulator.
//     Step 1 is narrated by wrapping each ListerWatcher (listwatch.go),
//     steps 2 to 6 by turning the informer's debug trace into lines
//     (narrate.go), step 7 by wrapping the event handlers, predicate and
//     rate limiter (hooks.go), steps 8, 9 and the writes in the reconciler
//     (foo.go).
//  3. The story (story.go) plays its chapters: each prints a one-line
//     explanation, makes a change or injects a fault, and waits until the
//     caches show the expected effect.
//
// With --server or --kubeconfig it narrates a running server instead:
// the Foo controller if the Foo CRD is installed, otherwise steps 1 to 6
// for the resource named by --resource (remote.go).
//
// # Deterministic mode
//
// The golden test runs the story inside a testing/synctest bubble and gives
// the gate (gate.go) synctest.Wait: every list, watch and watch event waits
// at the gate, which lets one through at a time, in resourceVersion order,
// only when everything else is blocked. The lines written between two such
// moments are printed grouped by pipeline stage (Reflector, process loop,
// handler, worker), each stage's lines in their own order: a causal order
// that does not depend on the scheduler. Without the gate (a normal run)
// lines are printed as they happen, with the time since the start.
//
// # Read next
//
// docs/README.md, the tour of the nine steps, then each package's Example.
package main
