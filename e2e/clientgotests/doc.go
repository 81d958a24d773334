// Command clientgotests runs client-go's own unit tests for tools/cache and
// util/workqueue against informerlab, and prints a table per file: tests,
// run, pass, fail, excluded. It is the strongest check that informerlab
// behaves as client-go does: the tests were written by the Kubernetes
// project, not here.
//
//	$(go env GOMODCACHE)/k8s.io/client-go@v0.37.2/tools/cache/*_test.go
//	        |
//	        | parse; take out what the list says; drop what no remaining
//	        | test reaches; drop unused imports (prepare.go)
//	        v
//	a temporary directory --go test -overlay--> ./cache (the shim package)
//	                                              |
//	                                              v
//	                            informerlab's indexer, deltafifo, reflector, informer
//
// # How it works
//
//  1. client-go is a dependency of this module (go.mod), so its source is in
//     the Go module cache; nothing of client-go's is copied into this
//     repository. The runner finds it with go list -m.
//  2. Each test file is parsed. The committed list (list.go) names what
//     cannot run against informerlab, each with a kind and a reason: private
//     internals, a fake clock, API left out on purpose, klog's text output. Those declarations
//     are taken out, then every declaration no remaining test or example
//     reaches (benchmarks are never run here), then the imports nothing uses.
//     No statement inside a remaining function is changed.
//  3. The files are written to a temporary directory and laid over the shim
//     package's directory with go test -overlay, so they compile as part of
//     package cache (or workqueue): the shim is that package's non-test
//     code. It maps client-go's names onto informerlab's (see the shim's
//     doc.go).
//  4. go test -race -json runs them, tools/cache once per informer queue
//     (deltafifo, realfifo, atomic). Each top-level test's outcome is
//     compared with the list: a failure not in it, an expected failure that
//     passed, a test that skipped itself, or a package failure outside any
//     test (a leaked goroutine found by client-go's TestMain, a build error)
//     makes the command exit 1.
//
// # Run it
//
//	cd e2e/clientgotests && go run .
//	go run . -suite util/workqueue -v     (one suite, with failed tests' output)
//	go run . -explain                     (what does not compile, per declaration)
//
// docs/mapping.md, "client-go's own tests", explains the list's kinds and
// reasons to a learner.
package main
