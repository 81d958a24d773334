// Command playground is the pipeline page of `demo --web` with nothing to
// install: compiled to WebAssembly (GOOS=js GOARCH=wasm), it runs the
// page's embedded world in the browser tab (the fakeapi server, the sample
// controller with its informers and workqueue, the Deployment simulator:
// demoengine.StartTab) and serves the page's three operations, the event
// stream, a control and an object, through a JavaScript bridge
// (syscall/js) instead of HTTP. The page's script (internal/pipelineweb's
// app.js, the same file the demo serves) picks that transport when the
// playground's loader is on the page; every control works in both hosts.
// With ?shards=N (2 to 8) in the page's address it runs the replicas page
// of `demo --web --shards N` instead (demoengine.StartShardTab): N sharded
// sample controllers sharing 16 buckets, and "kill a replica".
//
// The bridge (bridge.go) recovers a panic in any operation and answers
// with it, so the page shows it and the Go runtime goes on; a panic
// elsewhere ends the program, and the loader says so on the page.
//
// Build the static site, then serve its folder with any static file
// server:
//
//	go run ./cmd/playground/build -out site/
//	cd site && python3 -m http.server 8000   # then open http://127.0.0.1:8000/
//
// Outside a browser the command only says this.
package main
