package bench

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// The FIFO benchmarks (diagram steps 2-3) run the classic DeltaFIFO and the
// in-order RealFIFO of each implementation. Both are given the consumer's
// store as KnownObjects, as an informer does (client-go's RealFIFO requires
// it in its non-atomic mode, the one informerlab implements).

// fifo is the producer side both implementations share; pop is the consumer
// side, adapted per implementation: it pops one item and calls apply for
// each of its deltas.
type fifo interface {
	Add(obj any) error
	Replace(list []any, resourceVersion string) error
	Close()
}

type applyFunc func(deltaType string, obj any)

// known is the consumer's store: what the FIFO is told the consumer knows.
type known interface {
	Add(obj any) error
	Update(obj any) error
	GetByKey(key string) (any, bool, error)
}

type fifoImpl struct {
	name string
	// newFIFO returns a queue of the given kind ("DeltaFIFO" or "RealFIFO")
	// over a new known store, and its pop.
	newFIFO func(kind string) (fifo, func(applyFunc) error, known)
}

var fifoImpls = []fifoImpl{
	{"ours", func(kind string) (fifo, func(applyFunc) error, known) {
		store := indexer.NewStore(indexer.MetaNamespaceKeyFunc)
		opts := deltafifo.Options{KnownObjects: store, Logger: quiet}
		var q deltafifo.Queue = deltafifo.New(opts)
		if kind == "RealFIFO" {
			q = deltafifo.NewRealFIFO(opts)
		}
		pop := func(apply applyFunc) error {
			_, err := q.Pop(func(deltas deltafifo.Deltas, _ bool) error {
				for _, d := range deltas {
					apply(string(d.Type), d.Object)
				}
				return nil
			})
			return err
		}
		return q, pop, store
	}},
	{"clientgo", func(kind string) (fifo, func(applyFunc) error, known) {
		store := cache.NewStore(cache.MetaNamespaceKeyFunc)
		var q cache.Queue = cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{
			KeyFunction:           cache.MetaNamespaceKeyFunc,
			KnownObjects:          store,
			EmitDeltaTypeReplaced: true,
		})
		if kind == "RealFIFO" {
			q = cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
				KeyFunction:  cache.MetaNamespaceKeyFunc,
				KnownObjects: store,
			})
		}
		pop := func(apply applyFunc) error {
			_, err := q.Pop(func(obj any, _ bool) error {
				for _, d := range obj.(cache.Deltas) {
					apply(string(d.Type), d.Object)
				}
				return nil
			})
			return err
		}
		return q, pop, store
	}},
}

var fifoKinds = []string{"DeltaFIFO", "RealFIFO"}

// BenchmarkFIFOAddPop adds one object and pops it, over 1,000 objects: the
// cost of one watch event crossing the queue. Each Pop must hand out exactly
// the Added delta of the object just added.
func BenchmarkFIFOAddPop(b *testing.B) {
	const space = 1000
	objs := objects(space, 1, 0)
	for _, kind := range fifoKinds {
		for _, impl := range fifoImpls {
			b.Run(fmt.Sprintf("fifo=%s/impl=%s", kind, impl.name), func(b *testing.B) {
				q, pop, _ := impl.newFIFO(kind)
				defer q.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					want := objs[i%space]
					if err := q.Add(want); err != nil {
						b.Fatal(err)
					}
					deltas := 0
					err := pop(func(typ string, obj any) {
						deltas++
						if typ != "Added" || obj != want {
							b.Fatalf("Pop #%d handed out %s %p, want Added %p", i, typ, obj, want)
						}
					})
					if err != nil || deltas != 1 {
						b.Fatalf("Pop #%d: %d deltas, %v; want 1", i, deltas, err)
					}
				}
			})
		}
	}
}

// BenchmarkFIFOReplace relists 10,000 objects of which 10% changed: Replace
// with the new list, then pop every item and apply it to the known store as
// an informer does. The lists alternate, so every operation finds the same
// 1,000 objects changed. Each operation checks it popped every object once,
// as a Replaced delta, and saw exactly 1,000 changed resourceVersions.
func BenchmarkFIFOReplace(b *testing.B) {
	const n = 10_000
	// lists[0]: every object at resourceVersion 1; lists[1]: every tenth
	// object at resourceVersion 2.
	lists := [][]any{make([]any, n), make([]any, n)}
	for i := range n {
		lists[0][i] = NewObject(i, 1, 0)
		rv := 1
		if i%10 == 0 {
			rv = 2
		}
		lists[1][i] = NewObject(i, rv, 0)
	}
	for _, kind := range fifoKinds {
		for _, impl := range fifoImpls {
			b.Run(fmt.Sprintf("fifo=%s/impl=%s", kind, impl.name), func(b *testing.B) {
				q, pop, store := impl.newFIFO(kind)
				defer q.Close()
				for _, o := range lists[0] {
					if err := store.Add(o); err != nil {
						b.Fatal(err)
					}
				}
				var popped, changed, other int
				apply := func(typ string, obj any) {
					popped++
					if typ != "Replaced" {
						other++
						return
					}
					m, err := meta.Accessor(obj)
					if err != nil {
						b.Fatal(err)
					}
					old, ok, _ := store.GetByKey(m.GetNamespace() + "/" + m.GetName())
					if !ok {
						other++
						return
					}
					if old.(interface{ GetResourceVersion() string }).GetResourceVersion() != m.GetResourceVersion() {
						changed++
					}
					if err := store.Update(obj); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					popped, changed, other = 0, 0, 0
					if err := q.Replace(lists[(i+1)%2], "2"); err != nil {
						b.Fatal(err)
					}
					for range n {
						if err := pop(apply); err != nil {
							b.Fatal(err)
						}
					}
					if popped != n || changed != n/10 || other != 0 {
						b.Fatalf("relist #%d: popped %d deltas, %d changed, %d unexpected; want %d, %d, 0",
							i, popped, changed, other, n, n/10)
					}
				}
			})
		}
	}
}
