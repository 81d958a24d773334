// Package pipelineweb is the live web page of `demo --web`: the client-go
// diagram, steps 1 to 9, drawn in SVG, with a token moving along its arrow
// for every event of the running sample controller.
//
//	Reflector ListerWatcher --Valved----+  (the valve)
//	pipelinetrace.Event ------Trace-----+--> Recorder --> Hub --> Model (the boxes' state)
//	samplecontroller.Observer --Observe-+                    \--> Subscription per page --SSE--> browser
//
// The page shows the events the text demo prints, from the same places:
// the events come from the samplecontroller Observer, and from the
// informers' ListerWatchers and debug trace, which package
// internal/pipelinetrace makes typed events of, in one place; the demo's
// engine hands each of them to the terminal's narrator and to the
// Recorder, two renderers of one stream.
// Nothing is simulated: a token moves because the real Reflector, DeltaFIFO,
// informer, workqueue and worker did something.
//
// # How it works
//
//  1. [Recorder.Valved] wraps the API handle each informer lists and
//     watches through: every LIST, WATCH and watch event passes the
//     [Valve] (pause, single step, speed). A pipelinetrace.Stream's
//     ListerWatcher, around it, makes each a typed event, which
//     [Recorder.Trace] turns into a step 1 Event ([Recorder.Resource]
//     does both, for the page alone).
//  2. [Recorder.Trace], a sink of the Stream whose Handler is the
//     informers' logger, turns their typed trace into step 2 to 6 Events
//     and their Reflectors' state changes into Reflector Events. For a relist it names, per key,
//     the Replaced deltas and the tombstones Replace queues.
//  3. [Recorder.Observe], the samplecontroller Observer, turns steps 6 to
//     9, the API writes, Reconcile outcomes and backoffs into Events.
//  4. [Hub.Publish] numbers each Event, applies it to the [Model] and
//     offers it to every page's [Subscription], never waiting for one.
//  5. [Server] serves the embedded page (assets/: HTML, SVG, plain
//     JavaScript, no build step, nothing from the network) and streams to
//     each page, by Server-Sent Events, a hello (history and state), then
//     batches of events and, four times a second when it changed, the
//     Model's snapshot. Its controls call [Controls], which cmd/demo
//     implements (create, scale, delete, faults, scenarios). With
//     demo --web --shards N, its [Status] carries [Replicas] (a lane per
//     sharded replica with its caches, queue and relists, the bucket
//     Leases' holders, the overlap counter),
//     which the page draws as its replicas view, and a "kill-replica"
//     control.
//  6. The page's three operations are also methods, with no HTTP:
//     [Server.Stream] (the event stream), [Server.Act] (a control) and
//     [Server.Object] (one cached object). cmd/playground calls them from
//     the browser tab, where the whole pipeline runs as WebAssembly, and
//     the page's script (assets/app.js) picks its transport at start:
//     HTTP when the demo served it, calls into the tab when the
//     playground's loader is on the page. [Assets] gives the page's files
//     to the playground's site builder.
//
// # Guarantees
//
//   - Publish never blocks on a page. A page whose buffer is full loses
//     its oldest events; it is told how many, and where. Memory per page
//     is fixed ([DefaultBuffer] events), and so is the history
//     ([DefaultHistory]).
//   - Events reach every page in one order (Seq), so each key's events
//     keep the order in which the pipeline published them.
//   - A paused Valve holds the API server's answers without losing any: a
//     watch's events wait in order, read from the server as they come, so
//     the server never cuts the watch off as too slow.
//   - Bad input to the controls is an error the page shows, never a panic.
//   - Only a page this Server served can press its controls: each Server
//     makes a fresh token, writes it into the page, and refuses (403) a
//     control without it in [TokenHeader]. Served behind a
//     sameorigin.Guard, as cmd/demo does, the page's API also refuses
//     reads through a rebound DNS name and writes a page of another site
//     can send.
//   - Every type is safe for concurrent use.
//
// # Differences from client-go
//
// client-go has nothing like it. The Model follows the boxes from the
// events, by the rules of the component each stands for (a DeltaFIFO
// keeps one entry per key; a workqueue never hands out a key that is
// processing); the caches and last resourceVersions are read from the real
// informers.
//
// # Read next
//
// Run `go run ./cmd/demo --web` and open http://127.0.0.1:8080/, or build
// the playground (`go run ./cmd/playground/build -out site/`) and serve
// its folder. The
// Example shows the hub; the pipeline tests
// (go test -race -run 'TestRecorded|TestPaused|TestSlowHandler' ./internal/pipelineweb)
// run the sample controller recorded for the page, and the browser tests
// (cd e2e && go test -race -run TestWeb ./...) drive the page in chromium.
package pipelineweb
