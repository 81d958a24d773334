package bench

import (
	"flag"
	"io"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"k8s.io/klog/v2"
)

// TestMain silences client-go's klog output, as informerlab's side logs to
// a discard handler: neither implementation pays for writing logs.
func TestMain(m *testing.M) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	flag.Parse()
	os.Exit(m.Run())
}

// smoke reports whether the suite runs in smoke mode: with -short, or with
// the environment variable BENCH_SMOKE set to anything but "" or "0". Smoke
// mode divides the 100,000-object scenarios by ten so that
// `go test -bench . -benchtime=1x` checks every scenario in seconds.
func smoke() bool {
	if testing.Short() {
		return true
	}
	v := os.Getenv("BENCH_SMOKE")
	return v != "" && v != "0"
}

// big returns n, or n/10 in smoke mode. Scenarios of 100,000 objects call it.
func big(n int) int {
	if smoke() {
		return n / 10
	}
	return n
}

// waitClosed fails the benchmark if c is not closed within d.
func waitClosed(b *testing.B, c <-chan struct{}, d time.Duration, what string) {
	b.Helper()
	select {
	case <-c:
	case <-time.After(d):
		b.Fatalf("%s: not done within %v", what, d)
	}
}

// eventually polls cond every millisecond until it holds, failing the
// benchmark after d. It is for checks after the timed part, never inside it.
func eventually(b *testing.B, d time.Duration, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("%s: not true within %v", what, d)
		}
		time.Sleep(time.Millisecond)
	}
}

// heapAfterGC returns the live heap after two full collections.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// sampleHeap reads HeapAlloc every period until the returned function is
// called; that function returns the highest value seen.
func sampleHeap(period time.Duration) (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak
	}
}

// reportPercentiles sorts d and reports its 50th and 99th percentiles in
// microseconds.
func reportPercentiles(b *testing.B, d []time.Duration) {
	b.Helper()
	if len(d) == 0 {
		b.Fatal("no latency samples")
	}
	slices.Sort(d)
	at := func(p int) float64 {
		return float64(d[(len(d)-1)*p/100]) / float64(time.Microsecond)
	}
	b.ReportMetric(at(50), "p50-µs")
	b.ReportMetric(at(99), "p99-µs")
}

// spin burns about a microsecond of CPU without touching memory: the
// "busy reconcile" of the workqueue benchmarks. Callers fold the result
// into something they keep, so the compiler cannot drop the loop.
func spin(seed uint64) uint64 {
	x := seed | 1
	for range 400 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}
