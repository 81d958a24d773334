// Package bench measures informerlab against client-go, scenario by
// scenario, in one `go test -bench` run: the workqueue (diagram steps 7-8),
// the indexer (steps 4, 5, 9), the FIFOs (steps 2-3) and whole informers
// (steps 1-6).
//
//	         Source (List + Watch, in memory)
//	          |                         |
//	informerlab informer        client-go informer
//	          |                         |
//	same recorder handler      same recorder handler
//
// It is its own Go module, so that client-go is a dependency of the
// benchmarks only, never of informerlab.
//
// # How it works
//
// Every benchmark has one sub-benchmark per implementation, named
// .../impl=ours and .../impl=clientgo, so that `benchstat -col /impl` puts
// the two side by side with their ratio. Both run the same scenario code,
// over the same objects ([NewObject]: a ConfigMap's metadata, which both
// accept), through the same small interfaces.
//
//  1. The end-to-end benchmarks feed both informers from a [Source]: a List
//     that hands over a prepared list and a Watch backed by a channel. No
//     fake clientset, no server: only the informers are measured.
//  2. Every benchmark checks its result (the right items, exactly once; the
//     cache complete and current) and fails the run if it is wrong.
//  3. Latency, heap and memory figures are reported as extra metrics
//     (p50-µs, p99-µs, peak-MiB, retained-B/obj, items/s, events/s).
//
// # Guarantees
//
//   - A fast but wrong run fails (b.Fatal), whatever the implementation.
//   - Every goroutine a benchmark starts has stopped when it returns.
//   - A Source is safe for concurrent use and never sends on a closed
//     channel, however the reader stops its watch.
//
// # Read next
//
// README.md beside this file: the one command to run, how to read the
// ratios, and the latest figures. run.sh runs the suite and prints the table.
package bench
