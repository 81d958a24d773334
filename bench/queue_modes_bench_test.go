package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// The queue-mode benchmarks run each of the three queue designs in both
// implementations: informerlab's informer.WithQueue against client-go's
// informer with its feature gates set to the same design (a gate read when
// the informer starts, so each sub-benchmark sets the gates, starts its
// informers, and puts the gates back when they have stopped).
//
//	DeltaFIFO   InOrderInformers off
//	RealFIFO    InOrderInformers on, AtomicFIFO off, batches on
//	AtomicFIFO  InOrderInformers, AtomicFIFO, UnlockWhileProcessingFIFO and batches on
//	            (client-go 1.36's default)

var queueModes = []struct {
	kind  informer.QueueKind
	gates map[clientfeatures.Feature]bool
}{
	{informer.QueueDeltaFIFO, map[clientfeatures.Feature]bool{clientfeatures.InOrderInformers: false}},
	{informer.QueueRealFIFO, map[clientfeatures.Feature]bool{
		clientfeatures.InOrderInformers: true, clientfeatures.AtomicFIFO: false,
		clientfeatures.UnlockWhileProcessingFIFO: false, clientfeatures.InOrderInformersBatchProcess: true}},
	{informer.QueueAtomicFIFO, map[clientfeatures.Feature]bool{
		clientfeatures.InOrderInformers: true, clientfeatures.AtomicFIFO: true,
		clientfeatures.UnlockWhileProcessingFIFO: true, clientfeatures.InOrderInformersBatchProcess: true}},
}

// queueGates overrides some of client-go's feature gates: those in set, when
// set is not nil. It is installed once (client-go logs a warning every time
// its gates are replaced, which would garble the benchmark output) and then
// switched from mode to mode.
type queueGates struct {
	clientfeatures.Gates
	set *atomic.Pointer[map[clientfeatures.Feature]bool]
}

func (g queueGates) Enabled(f clientfeatures.Feature) bool {
	if set := g.set.Load(); set != nil {
		if on, ok := (*set)[f]; ok {
			return on
		}
	}
	return g.Gates.Enabled(f)
}

var (
	installGates sync.Once
	modeGates    atomic.Pointer[map[clientfeatures.Feature]bool]
)

// withQueueGates sets client-go's gates for one mode until restore is called.
// The first call, made before any sub-benchmark starts, installs queueGates.
func withQueueGates(set map[clientfeatures.Feature]bool) (restore func()) {
	installGates.Do(func() {
		clientfeatures.ReplaceFeatureGates(queueGates{Gates: clientfeatures.FeatureGates(), set: &modeGates})
	})
	modeGates.Store(&set)
	return func() { modeGates.Store(nil) }
}

// modeImpls are the two implementations with the queue of one mode.
func modeImpls(kind informer.QueueKind) []informerImpl {
	return []informerImpl{
		{"ours", func(b *testing.B, src *Source, hs ...*recorder) runningInformer {
			inf := informer.NewSharedIndexInformer(src, &metav1.PartialObjectMetadata{}, 0,
				indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc},
				informer.WithLogger(quiet), informer.WithQueue(kind))
			for _, h := range hs {
				if _, err := inf.AddEventHandler(h); err != nil {
					b.Fatal(err)
				}
			}
			stop := run(inf.Run)
			return runningInformer{getByKey: inf.GetStore().GetByKey, keys: func() int { return len(inf.GetStore().ListKeys()) },
				hasSynced: inf.HasSynced, stop: stop}
		}},
		{"clientgo", func(b *testing.B, src *Source, hs ...*recorder) runningInformer {
			inf := cache.NewSharedIndexInformer(clientgoSource{src}, &metav1.PartialObjectMetadata{}, 0,
				cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for _, h := range hs {
				if _, err := inf.AddEventHandler(h); err != nil {
					b.Fatal(err)
				}
			}
			stop := run(inf.RunWithContext)
			return runningInformer{getByKey: inf.GetStore().GetByKey, keys: func() int { return len(inf.GetStore().ListKeys()) },
				hasSynced: inf.HasSynced, stop: stop}
		}},
	}
}

// BenchmarkQueueModeThroughput is BenchmarkInformerThroughput for each
// queue design.
func BenchmarkQueueModeThroughput(b *testing.B) {
	versions := throughputVersions()
	withQueueGates(nil)() // install the gates before any output
	for _, mode := range queueModes {
		for _, impl := range modeImpls(mode.kind) {
			b.Run(fmt.Sprintf("fifo=%s/impl=%s", mode.kind, impl.name), func(b *testing.B) {
				restore := withQueueGates(mode.gates)
				defer restore()
				throughput(b, impl, versions, 1)
			})
		}
	}
}

// BenchmarkQueueModeRelist10k is BenchmarkInformerRelist100k at 10,000
// objects for each queue design: a synced informer lists again after a 410,
// 10% of the objects changed; ns/op runs from the List call until the
// handler has been told of everything the relist brought (a sentinel added
// on the new watch arrives last). Each operation syncs a new informer first,
// untimed.
func BenchmarkQueueModeRelist10k(b *testing.B) {
	n := 10_000
	if smoke() {
		n = 1000
	}
	withQueueGates(nil)()
	for _, mode := range queueModes {
		for _, impl := range modeImpls(mode.kind) {
			b.Run(fmt.Sprintf("fifo=%s/impl=%s", mode.kind, impl.name), func(b *testing.B) {
				restore := withQueueGates(mode.gates)
				defer restore()
				relistInformer(b, impl, n)
			})
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
