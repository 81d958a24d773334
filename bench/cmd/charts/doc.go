// Command charts draws the scaling curves of bench/README.md.
//
// The Scale benchmarks (scaling_bench_test.go) run one scenario at growing
// sizes: an informer syncing and relisting 10,000 to 1,000,000 objects,
// one update fanned out to 1, 10 and 100 handlers, a workqueue drained by
// 1 to 64 workers; each size once for informerlab and once for client-go.
// charts reads a results file in go test's benchmark format (what run.sh
// writes), takes the median of every size over all passes, and writes one
// SVG line chart per curve, the two implementations side by side:
//
//	cd bench && BENCH=Scale ./run.sh            # run.sh calls charts itself
//	go run ./cmd/charts -in results.txt -out charts
//
// The SVGs are self-contained (no scripts, no fonts to fetch) and use log
// scales where the sizes span decades. It needs nothing but the standard
// library: no plotting tool is installed to draw them.
package main
