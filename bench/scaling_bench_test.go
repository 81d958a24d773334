package bench

import (
	"fmt"
	"os"
	"testing"
)

// The Scale benchmarks are the curves of bench/README.md's charts: the
// same scenarios as the Informer and Workqueue benchmarks, at growing
// sizes. cmd/charts draws them from run.sh's results.

// scaleSizes returns the object counts of the sync and relist curves:
// 10,000 and 100,000, and 1,000,000 with BENCH_LARGE=1 in the environment
// (a million-object informer needs a few GiB and a minute per pass); in
// smoke mode 10,000 alone.
func scaleSizes() []int {
	switch {
	case smoke():
		return []int{10_000}
	case os.Getenv("BENCH_LARGE") == "1":
		return []int{10_000, 100_000, 1_000_000}
	}
	return []int{10_000, 100_000}
}

// BenchmarkScaleSync is BenchmarkInformerSync100k at each size: the time to
// sync, and the heap each cached object keeps (retained-B/obj).
func BenchmarkScaleSync(b *testing.B) {
	for _, n := range scaleSizes() {
		for _, impl := range informerImpls {
			b.Run(fmt.Sprintf("objects=%d/impl=%s", n, impl.name), func(b *testing.B) { syncInformer(b, impl, n) })
		}
	}
}

// BenchmarkScaleRelist is BenchmarkInformerRelist100k at each size.
func BenchmarkScaleRelist(b *testing.B) {
	for _, n := range scaleSizes() {
		for _, impl := range informerImpls {
			b.Run(fmt.Sprintf("objects=%d/impl=%s", n, impl.name), func(b *testing.B) { relistInformer(b, impl, n) })
		}
	}
}

// BenchmarkScaleFanout is BenchmarkInformerThroughput with 1, 10 and 100
// handlers: ns/op is the time per watch update until every handler has
// been told of it.
func BenchmarkScaleFanout(b *testing.B) {
	versions := throughputVersions()
	for _, handlers := range []int{1, 10, 100} {
		for _, impl := range informerImpls {
			b.Run(fmt.Sprintf("handlers=%d/impl=%s", handlers, impl.name), func(b *testing.B) {
				throughput(b, impl, versions, handlers)
			})
		}
	}
}

// BenchmarkScaleDrain is BenchmarkWorkqueueDrain (plain queue, spinning
// reconcile) with 1 to 64 workers.
func BenchmarkScaleDrain(b *testing.B) {
	keys := queueKeys(big(100_000))
	for _, workers := range []int{1, 2, 4, 8, 16, 32, 64} {
		for _, impl := range queueImpls {
			if impl.kind != "plain" {
				continue
			}
			b.Run(fmt.Sprintf("workers=%d/impl=%s", workers, impl.name), func(b *testing.B) {
				drain(b, impl, keys, workers, true)
			})
		}
	}
}
