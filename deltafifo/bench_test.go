package deltafifo_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
)

func benchObjects(n int) []*metav1.PartialObjectMetadata {
	objs := make([]*metav1.PartialObjectMetadata, n)
	for i := range objs {
		objs[i] = obj(fmt.Sprintf("pod-%d", i), "1")
	}
	return objs
}

// benchAddPop measures one Add followed by one Pop, the steady state of an
// informer keeping up with its watch.
func benchAddPop(b *testing.B, q deltafifo.Queue) {
	objs := benchObjects(1024)
	noop := func(deltafifo.Deltas, bool) error { return nil }
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := q.Add(objs[i%len(objs)]); err != nil {
			b.Fatal(err)
		}
		if _, err := q.Pop(noop); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkDeltaFIFOAddPop: step 2 then step 3 through the classic queue.
func BenchmarkDeltaFIFOAddPop(b *testing.B) {
	benchAddPop(b, deltafifo.New(deltafifo.Options{}))
}

// BenchmarkRealFIFOAddPop: the same through the in-order queue.
func BenchmarkRealFIFOAddPop(b *testing.B) {
	benchAddPop(b, deltafifo.NewRealFIFO(deltafifo.Options{}))
}

// benchBurst measures 100 updates to 10 objects followed by popping the
// queue empty: where per-key coalescing pays off (10 pops instead of 100).
// pops is how many Pops empty the queue.
func benchBurst(b *testing.B, q deltafifo.Queue, pops int) {
	objs := benchObjects(10)
	noop := func(deltafifo.Deltas, bool) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		for i := range 100 {
			if err := q.Update(objs[i%len(objs)]); err != nil {
				b.Fatal(err)
			}
		}
		for range pops {
			if _, err := q.Pop(noop); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDeltaFIFOBurst: 100 updates over 10 keys, then drain.
func BenchmarkDeltaFIFOBurst(b *testing.B) {
	benchBurst(b, deltafifo.New(deltafifo.Options{}), 10)
}

// BenchmarkRealFIFOBurst: the same burst through the in-order queue.
func BenchmarkRealFIFOBurst(b *testing.B) {
	benchBurst(b, deltafifo.NewRealFIFO(deltafifo.Options{}), 100)
}
