// Package demoengine is the engine of cmd/demo: the world it runs (the
// embedded fakeapi seeded with Foo default/alpha, the project's sample
// controller and the Deployment simulator; or a remote API server), the
// narrator that writes one line per step an object takes across the
// client-go diagram, the scenarios of the story, and the controls of the
// live pipeline page. cmd/demo turns its flags into Options and calls Run;
// cmd/playground runs the page's embedded world in a browser tab
// (StartTab), with no HTTP server, or the replicas page's (StartShardTab,
// for ?shards=N).
//
// # How it works
//
//  1. An embedded fakeapi server serves Foos and Deployments
//     (samplecontroller.Register) and is seeded with Foo default/alpha and
//     its Deployment alpha-nginx.
//  2. samplecontroller.New builds the Foo controller and the Deployment
//     simulator (which plays kube-controller-manager's Deployment
//     controller) on one Manager, whose cache has one informer for Foos
//     and one for Deployments. The demo narrates it from the outside,
//     through what New takes (world.go): step 1 by wrapping each
//     informer's ListerWatcher (listwatch.go); steps 2 to 5 from the informers'
//     debug trace, which package internal/pipelinetrace makes typed
//     events of, in one place (the Logger), narrated by narrate.go;
//     steps 6 to 9, the controller's API writes, its Reconcile results and
//     its backoff from the Observer's events (observe.go).
//  3. The story (story.go) plays its chapters: each prints a one-line
//     explanation, makes a change or injects a fault with fakeapi, and
//     waits until the caches show the expected effect.
//
// With --web it serves the same events as a live web page of the diagram
// (web.go, web_controls.go, web_scenarios.go; the page and its event feed
// are package internal/pipelineweb): the Observer's events and the typed
// trace go to the narrator and to the page's Recorder alike, two renderers
// of one stream (world.go), the Foo and
// Deployment handles pass its Valve (pause, step, speed), and the page's
// controls write Foos, inject fakeapi's faults and play the scenarios. The
// terminal narrates as usual. The page is served behind the same-origin
// guard of package internal/sameorigin, and its controls carry a token made
// for the run: pages of other sites open in the same browser can neither
// press them nor read the page's API.
//
// With --server or --kubeconfig it narrates a running server instead
// (remote.go). It asks discovery first, saying every 5 seconds that it is
// still waiting and giving up after 30 (wait.go): a server that accepts
// connections and never answers is an error, not a silent demo. A server
// that does not answer /api as an API server does is said not to be one, and a --resource the server
// does not serve fails at once, naming it. Then it runs the sample
// controller if the Foo CRD (samplecontroller/testdata/foo-crd.yaml) is
// installed, otherwise narrates steps 1 to 6 for --resource. A server with
// no kube-controller-manager (cmd/fakeapi, a bare control plane) never
// writes Deployment status: --simulate-deployments plays that part, and
// without it the demo says, after a while, why the Foo stays Progressing
// (stall.go).
//
// # Sharded mode
//
// With Options.Shards (cmd/demo --shards N) it plays no story: N sharded
// sample controllers (samplecontroller.Options.Shard) run in one process
// over the embedded server, with short test Leases, and shard.go narrates
// the ring: which replica holds which buckets once it settles, then the
// kill of replica-0 (its Lease client cut, then stopped, releasing
// nothing) and the survivors taking its buckets once its member Lease expires
// and reconciling its Foos. With Web as well, web_shard.go serves the page
// with the replicas view instead: the state snapshot's Status carries the
// replicas (lanes, the bucket Leases' holders, an overlap detector over
// every replica's Reconciles), and the "kill-replica" control kills one.
// Each lane reads its replica's caches and Foo queue, and a relist meter
// (shard_relist.go) on its Foo API handle counts the lists that change the
// shard selector, and its cache's adds and deletes since the last one.
//
// # Deterministic mode
//
// The golden test runs the story inside a testing/synctest bubble and gives
// the gate (gate.go) synctest.Wait: every list, watch and watch event waits
// at the gate, which lets one through at a time, in resourceVersion order,
// only when everything else is blocked. The lines written between two such
// moments are printed grouped by pipeline stage (Reflector, process loop,
// handler, worker) and, within a stage, by goroutine (one per informer, per
// handler registration, per controller), each goroutine's lines in their
// own order: a causal order that does not depend on the scheduler. The
// Reflectors' relists after a 410, which wait a randomly jittered backoff,
// are held at the gate until all have arrived. Without the gate (a normal run)
// lines are printed as they happen, with the time since the start.
//
// Read next: docs/README.md, the tour of the nine steps, then each
// package's Example.
package demoengine
