package bench

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/informer"
)

// The informer benchmarks run the whole pipeline (diagram steps 1-6) of
// each implementation against the same Source: its List and Watch are the
// only way objects get in. Each informer has the namespace index (as a
// factory's informers do), no resync, and one handler, a recorder.

var quiet = slog.New(slog.DiscardHandler)

// clientgoSource adapts a Source to client-go's ListerWatcher. It declines
// streaming lists (WatchList), which client-go would otherwise try first:
// the Source, like informerlab's default Reflector, serves plain lists.
type clientgoSource struct{ src *Source }

func (c clientgoSource) List(opts metav1.ListOptions) (runtime.Object, error) {
	return c.src.List(context.Background(), opts)
}

func (c clientgoSource) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return c.src.Watch(context.Background(), opts)
}

func (c clientgoSource) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return c.src.List(ctx, opts)
}

func (c clientgoSource) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return c.src.Watch(ctx, opts)
}

func (c clientgoSource) IsWatchListSemanticsUnSupported() bool { return true }

// runningInformer is what a benchmark needs of a running informer.
type runningInformer struct {
	getByKey  func(key string) (any, bool, error)
	keys      func() int
	hasSynced func() bool
	stop      func()
}

type informerImpl struct {
	name string
	// start builds an informer over src with hs as its handlers, and runs it.
	start func(b *testing.B, src *Source, hs ...*recorder) runningInformer
}

// informerImpls are the two implementations in their default configuration:
// informerlab's DeltaFIFO, client-go 1.37's own default queue (its feature
// gates untouched).
var informerImpls = modeImpls(informer.QueueDeltaFIFO)

// run starts fn on its own goroutine; stop cancels its context and waits
// for it to return.
func run(fn func(ctx context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// recorder is the one handler of every informer benchmark. It implements
// both implementations' ResourceEventHandler (their method sets are the
// same), counts what it is told, and signals what a benchmark waits for.
type recorder struct {
	adds, initialAdds, updates, changed, deletes atomic.Int64

	// initialTarget initial adds close synced.
	initialTarget int64
	synced        chan struct{}
	// updateTarget updates close updated (0: never).
	updateTarget int64
	updated      chan struct{}
	// deliver, if not nil, receives the new object of every update.
	deliver chan any
	// sentinel, when set, is closed by the add of an object of that name.
	sentinel atomic.Pointer[sentinel]
}

type sentinel struct {
	name string
	seen chan struct{}
}

func newRecorder(initial, updates int) *recorder {
	return &recorder{
		initialTarget: int64(initial), synced: make(chan struct{}),
		updateTarget: int64(updates), updated: make(chan struct{}),
	}
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	r.adds.Add(1)
	if isInInitialList && r.initialAdds.Add(1) == r.initialTarget {
		close(r.synced)
	}
	if s := r.sentinel.Load(); s != nil && obj.(*metav1.PartialObjectMetadata).Name == s.name {
		if r.sentinel.CompareAndSwap(s, nil) {
			close(s.seen)
		}
	}
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	if oldObj.(*metav1.PartialObjectMetadata).ResourceVersion != newObj.(*metav1.PartialObjectMetadata).ResourceVersion {
		r.changed.Add(1)
	}
	if r.deliver != nil {
		r.deliver <- newObj
	}
	if r.updates.Add(1) == r.updateTarget {
		close(r.updated)
	}
}

func (r *recorder) OnDelete(any) { r.deletes.Add(1) }

// expectSentinel arms the recorder for the add of name; wait on the result.
func (r *recorder) expectSentinel(name string) <-chan struct{} {
	s := &sentinel{name: name, seen: make(chan struct{})}
	r.sentinel.Store(s)
	return s.seen
}

// startSynced lists n objects at resourceVersion 1 into a new informer of
// impl and waits until each of its handlers has seen all of them.
func startSynced(b *testing.B, impl informerImpl, src *Source, n int, hs ...*recorder) runningInformer {
	b.Helper()
	src.SetList(NewList(n, 1, func(int) int { return 1 }))
	inf := impl.start(b, src, hs...)
	for _, h := range hs {
		waitClosed(b, h.synced, 5*time.Minute, "initial list handled")
	}
	eventually(b, time.Minute, "informer synced", inf.hasSynced)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := src.WaitForWatch(ctx, 1); err != nil {
		b.Fatal(err)
	}
	<-src.Listed()
	return inf
}

// checkRV fails unless the cache holds object i at resourceVersion rv.
func checkRV(b *testing.B, inf runningInformer, i int, rv string) {
	b.Helper()
	obj, ok, err := inf.getByKey(Key(i))
	if err != nil || !ok {
		b.Fatalf("cache lacks %s: %v", Key(i), err)
	}
	if got := obj.(*metav1.PartialObjectMetadata).ResourceVersion; got != rv {
		b.Fatalf("cache holds %s at resourceVersion %s, want %s", Key(i), got, rv)
	}
}

// BenchmarkInformerThroughput pushes b.N watch updates, spread over 1,000
// synced objects, through the informer to one no-op handler. It ends when
// the handler has been told of every update, and then checks the cache holds
// the last version of every object.
func BenchmarkInformerThroughput(b *testing.B) {
	versions := throughputVersions()
	for _, impl := range informerImpls {
		b.Run("impl="+impl.name, func(b *testing.B) { throughput(b, impl, versions, 1) })
	}
}

// throughputObjects is how many synced objects the throughput benchmarks
// spread their updates over.
const throughputObjects = 1000

// throughputVersions returns two versions (resourceVersions 2 and 3) of
// every object; the updates alternate between them.
func throughputVersions() [][]*metav1.PartialObjectMetadata {
	versions := [][]*metav1.PartialObjectMetadata{make([]*metav1.PartialObjectMetadata, throughputObjects), make([]*metav1.PartialObjectMetadata, throughputObjects)}
	for v := range versions {
		for i := range throughputObjects {
			versions[v][i] = NewObject(i, v+2, 0)
		}
	}
	return versions
}

// throughput is one run of a throughput benchmark: b.N watch updates
// through a synced informer of impl to handlers no-op handlers, timed
// until every handler has been told of every one; then each handler must
// have seen b.N changed updates, only the initial adds and no delete, and
// the cache the last version of every object.
func throughput(b *testing.B, impl informerImpl, versions [][]*metav1.PartialObjectMetadata, handlers int) {
	const objects = throughputObjects
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src := NewSource(1024)
	hs := make([]*recorder, handlers)
	for i := range hs {
		hs[i] = newRecorder(objects, b.N)
	}
	inf := startSynced(b, impl, src, objects, hs...)
	defer inf.stop()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		obj := versions[(i/objects)%2][i%objects]
		if err := src.Send(ctx, watch.Event{Type: watch.Modified, Object: obj}); err != nil {
			b.Fatal(err)
		}
	}
	for _, h := range hs {
		waitClosed(b, h.updated, 5*time.Minute, "every update handled")
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	for _, h := range hs {
		if h.changed.Load() != int64(b.N) || h.adds.Load() != objects || h.deletes.Load() != 0 {
			b.Fatalf("handler saw %d changed updates, %d adds, %d deletes; want %d, %d, 0",
				h.changed.Load(), h.adds.Load(), h.deletes.Load(), b.N, objects)
		}
	}
	for i := range objects {
		rv := "1"
		if i < b.N {
			last := (b.N-1-i)/objects*objects + i
			rv = versions[(last/objects)%2][i].ResourceVersion
		}
		checkRV(b, inf, i, rv)
	}
}

// BenchmarkInformerLatency writes one watch update at a time and waits for
// the handler to be called with it: the time from the source's write to the
// handler call, reported as p50 and p99 over all operations.
func BenchmarkInformerLatency(b *testing.B) {
	const objects = 1000
	versions := [][]*metav1.PartialObjectMetadata{make([]*metav1.PartialObjectMetadata, objects), make([]*metav1.PartialObjectMetadata, objects)}
	for v := range versions {
		for i := range objects {
			versions[v][i] = NewObject(i, v+2, 0)
		}
	}
	for _, impl := range informerImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			src := NewSource(1024)
			h := newRecorder(objects, 0)
			h.deliver = make(chan any, 1)
			inf := startSynced(b, impl, src, objects, h)
			defer inf.stop()
			samples := make([]time.Duration, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				obj := versions[(i/objects)%2][i%objects]
				start := time.Now()
				if err := src.Send(ctx, watch.Event{Type: watch.Modified, Object: obj}); err != nil {
					b.Fatal(err)
				}
				select {
				case got := <-h.deliver:
					samples[i] = time.Since(start)
					if got != obj {
						b.Fatalf("update #%d: handler got %v, want %v", i, got, obj)
					}
				case <-ctx.Done():
					b.Fatalf("update #%d never reached the handler", i)
				}
			}
			b.StopTimer()
			reportPercentiles(b, samples)
		})
	}
}

// BenchmarkInformerSync100k measures one informer syncing 100,000 listed
// objects: ns/op is the time from Run until the handler has been told of the
// last initial object; peak-MiB the highest heap while syncing (sampled
// every 2ms, the listed objects included); retained-B/obj the heap the
// synced informer keeps per cached object (object, key, index, bookkeeping).
// The list is built beforehand, as if decoded, and only the informer keeps
// it.
func BenchmarkInformerSync100k(b *testing.B) {
	n := big(100_000)
	for _, impl := range informerImpls {
		b.Run("impl="+impl.name, func(b *testing.B) { syncInformer(b, impl, n) })
	}
}

// syncInformer is one run of a sync benchmark: b.N informers of impl, each
// syncing n listed objects from Run until its handler has the last one;
// peak-MiB and retained-B/obj are reported as BenchmarkInformerSync100k
// says.
func syncInformer(b *testing.B, impl informerImpl, n int) {
	var peak, retained float64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		src := NewSource(1024)
		h := newRecorder(n, 0)
		before := heapAfterGC()
		src.SetList(NewList(n, 1, func(int) int { return 1 }))
		stopSampling := sampleHeap(2 * time.Millisecond)
		b.StartTimer()

		inf := impl.start(b, src, h)
		waitClosed(b, h.synced, 5*time.Minute, "initial list handled")

		b.StopTimer()
		peak += float64(stopSampling()-before) / (1 << 20)
		eventually(b, time.Minute, "informer synced", inf.hasSynced)
		retained += float64(heapAfterGC()-before) / float64(n)
		if got := inf.keys(); got != n {
			b.Fatalf("cache holds %d objects, want %d", got, n)
		}
		if h.initialAdds.Load() != int64(n) || h.adds.Load() != int64(n) || h.updates.Load() != 0 {
			b.Fatalf("handler saw %d initial adds, %d adds, %d updates; want %d, %d, 0",
				h.initialAdds.Load(), h.adds.Load(), h.updates.Load(), n, n)
		}
		inf.stop()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(peak/float64(b.N), "peak-MiB")
	b.ReportMetric(retained/float64(b.N), "retained-B/obj")
}

// BenchmarkInformerRelist100k makes a synced informer of 100,000 objects
// list again: the source ends the watch with 410 Expired and serves a new
// list in which 10% of the objects changed. ns/op runs from the List call
// until the handler has been told of everything the relist brought: after
// the relist, the source adds a sentinel object on the new watch, and the
// handler sees it only after every notification the relist queued. The
// check: exactly the changed objects were reported as changed, nothing was
// added but the sentinel or deleted, and the cache holds every new version.
// updates/op counts all updates, the unchanged objects included (both
// implementations report those as resyncs).
//
// Each operation syncs a new informer first (not timed): a Reflector backs
// off before every relist after a failed watch, and the backoff doubles
// while failures keep coming, so relisting one informer again and again
// would spend the run sleeping.
func BenchmarkInformerRelist100k(b *testing.B) {
	n := big(100_000)
	for _, impl := range informerImpls {
		b.Run("impl="+impl.name, func(b *testing.B) { relistInformer(b, impl, n) })
	}
}

// relistInformer is one run of a relist benchmark: b.N relists of n
// objects as BenchmarkInformerRelist100k describes, reporting updates/op
// and s-relist.
func relistInformer(b *testing.B, impl informerImpl, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var updates int64
	var relist time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		u, d := relistOnce(b, ctx, impl, n)
		updates += u
		relist += d
	}
	b.StopTimer()
	b.ReportMetric(float64(updates)/float64(b.N), "updates/op")
	b.ReportMetric(relist.Seconds()/float64(b.N), "s-relist")
}

// relistOnce syncs a new informer of n objects (untimed), makes it list
// again with every tenth object changed, times the relist from the List
// call to the handling of a sentinel added on the new watch, and checks
// the outcome (untimed). It returns the updates the relist brought and its
// duration. The timer runs on entry and on return.
func relistOnce(b *testing.B, ctx context.Context, impl informerImpl, n int) (int64, time.Duration) {
	b.StopTimer()
	src := NewSource(1024)
	h := newRecorder(n, 0)
	inf := startSynced(b, impl, src, n, h)
	defer inf.stop()
	// Every tenth object moves from resourceVersion 1 to 2.
	src.SetList(NewList(n, 2, func(i int) int { return 1 + boolInt(i%10 == 0) }))
	adds, changed, deletes, upd := h.adds.Load(), h.changed.Load(), h.deletes.Load(), h.updates.Load()
	seen := h.expectSentinel(sentinelObject().Name)
	if err := src.BreakWatch(ctx); err != nil {
		b.Fatal(err)
	}
	var listed time.Time
	select {
	case listed = <-src.Listed():
	case <-ctx.Done():
		b.Fatal("the informer did not list again")
	}
	b.StartTimer()

	if err := src.WaitForWatch(ctx, 2); err != nil {
		b.Fatal(err)
	}
	if err := src.Send(ctx, watch.Event{Type: watch.Added, Object: sentinelObject()}); err != nil {
		b.Fatal(err)
	}
	waitClosed(b, seen, 5*time.Minute, "sentinel handled")

	b.StopTimer()
	relist := time.Since(listed)
	if d := h.changed.Load() - changed; d != int64(n/10) {
		b.Fatalf("relist: handler saw %d changed objects, want %d", d, n/10)
	}
	if a, d := h.adds.Load()-adds, h.deletes.Load()-deletes; a != 1 || d != 0 {
		b.Fatalf("relist: handler saw %d adds and %d deletes, want 1 and 0", a, d)
	}
	for i := range n {
		checkRV(b, inf, i, strconv.Itoa(1+boolInt(i%10 == 0)))
	}
	updates := h.updates.Load() - upd
	inf.stop() // untimed; the deferred stop only covers a failed check
	b.StartTimer()
	return updates, relist
}

// sentinelObject returns the object added after a relist.
func sentinelObject() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       Namespace(0),
			Name:            "sentinel",
			ResourceVersion: "3",
		},
	}
}
