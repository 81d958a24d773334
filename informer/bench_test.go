package informer_test

import (
	"context"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/informer"
)

// The benchmarks feed the informer from a synthetic ListerWatcher, so they
// measure the informer (queue, cache, dispatch) and not a server. Objects
// are small typed objects: metav1.PartialObjectMetadata with a namespace, a
// name, a resourceVersion and one label.

func smallObject(i, rv int) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       "bench",
			Name:            "cm-" + strconv.Itoa(i),
			ResourceVersion: strconv.Itoa(rv),
			Labels:          map[string]string{"app": "bench"},
		},
	}
}

// syntheticSource lists n objects and then serves watch as the watch. The
// list is built by prepare, or on the first List, and handed over: the
// source keeps no reference to it, so the cache is what keeps the objects.
type syntheticSource struct {
	n        int
	watch    *watch.FakeWatcher
	prepared *metav1.PartialObjectMetadataList
}

func (s *syntheticSource) prepare() {
	list := &metav1.PartialObjectMetadataList{Items: make([]metav1.PartialObjectMetadata, s.n)}
	for i := range s.n {
		list.Items[i] = *smallObject(i, 1)
	}
	list.ResourceVersion = "1"
	s.prepared = list
}

func (s *syntheticSource) List(ctx context.Context, opts metav1.ListOptions) (k8sruntime.Object, error) {
	if s.prepared == nil {
		s.prepare()
	}
	list := s.prepared
	s.prepared = nil
	return list, nil
}

func (s *syntheticSource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.watch, nil
}

// countingHandler counts calls and closes reached once the count hits target.
type countingHandler struct {
	count   atomic.Int64
	target  int64
	reached chan struct{}
	once    sync.Once
}

func newCountingHandler(target int64) *countingHandler {
	return &countingHandler{target: target, reached: make(chan struct{})}
}

func (h *countingHandler) hit() {
	if h.count.Add(1) == h.target {
		h.once.Do(func() { close(h.reached) })
	}
}
func (h *countingHandler) OnAdd(any, bool)   { h.hit() }
func (h *countingHandler) OnUpdate(any, any) { h.hit() }
func (h *countingHandler) OnDelete(any)      { h.hit() }
func (h *countingHandler) wait(b *testing.B) { b.Helper(); waitClosed(b, h.reached, time.Minute) }
func waitClosed(b *testing.B, c <-chan struct{}, d time.Duration) {
	b.Helper()
	select {
	case <-c:
	case <-time.After(d):
		b.Fatalf("not done within %v", d)
	}
}

func runInformer(inf informer.SharedIndexInformer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

var quiet = slog.New(slog.DiscardHandler)

// BenchmarkInformerThroughput pushes b.N watch updates, spread over 1,000
// objects, through a synced informer to one no-op handler, and reports
// events per second from the watch channel to the handler.
func BenchmarkInformerThroughput(b *testing.B) {
	for _, q := range []informer.QueueKind{informer.QueueDeltaFIFO, informer.QueueRealFIFO, informer.QueueAtomicFIFO} {
		b.Run(q.String(), func(b *testing.B) {
			const objects = 1000
			src := &syntheticSource{n: objects, watch: watch.NewFakeWithChanSize(1024, false)}
			inf := informer.NewSharedIndexInformer(src, &metav1.PartialObjectMetadata{}, 0, nil,
				informer.WithQueue(q), informer.WithLogger(quiet))
			h := newCountingHandler(int64(objects + b.N))
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				b.Fatal(err)
			}
			stop := runInformer(inf)
			defer stop()
			waitClosed(b, reg.Done(), time.Minute)

			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				src.watch.Modify(smallObject(i%objects, i+2))
			}
			h.wait(b)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkSync100kObjects measures the time from Run to a synced handler
// over 100,000 listed objects (the list is built beforehand, as if decoded),
// the peak heap while syncing (sampled every 2ms; the list itself included)
// and the heap the cache keeps afterwards per object (the object itself, its
// key and the cache's bookkeeping).
func BenchmarkSync100kObjects(b *testing.B) {
	const n = 100_000
	for range b.N {
		src := &syntheticSource{n: n, watch: watch.NewFake()}
		inf := informer.NewSharedIndexInformer(src, &metav1.PartialObjectMetadata{}, 0, nil,
			informer.WithLogger(quiet))
		reg, err := inf.AddEventHandler(newCountingHandler(n))
		if err != nil {
			b.Fatal(err)
		}
		before := heapAfterGC()
		src.prepare()
		stopSampling := sampleHeap(2 * time.Millisecond)

		start := time.Now()
		stop := runInformer(inf)
		waitClosed(b, reg.Done(), 5*time.Minute)
		took := time.Since(start)

		peakBytes := stopSampling()
		retained := heapAfterGC() - before
		if got := len(inf.GetStore().ListKeys()); got != n {
			b.Fatalf("cache holds %d objects, want %d", got, n)
		}
		b.ReportMetric(took.Seconds(), "s-to-sync")
		b.ReportMetric(float64(peakBytes-before)/(1<<20), "peak-MiB")
		b.ReportMetric(float64(retained)/n, "retained-B/obj")
		stop()
	}
}

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// sampleHeap polls HeapAlloc every period until stop is called, which
// returns the highest value seen.
func sampleHeap(period time.Duration) func() uint64 {
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
