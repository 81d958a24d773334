package bench

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informerlab/informerlab/indexer"
)

// The indexer benchmarks (diagram steps 4, 5 and 9) use two indexes on both
// sides: each implementation's own namespace index, and the same "app"
// label index function (AppIndexFunc).

// store is the method set informerlab's indexer.Indexer and client-go's
// cache.Indexer share.
type store interface {
	Add(obj any) error
	Update(obj any) error
	GetByKey(key string) (any, bool, error)
	ListKeys() []string
	Replace(list []any, resourceVersion string) error
	ByIndex(indexName, indexedValue string) ([]any, error)
}

type storeImpl struct {
	name       string
	newIndexer func() store
}

var storeImpls = []storeImpl{
	{"ours", func() store {
		return indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
			indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
			AppLabel:               AppIndexFunc,
		})
	}},
	{"clientgo", func() store {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
			cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
			AppLabel:             AppIndexFunc,
		})
	}},
}

// storeSize is the number of objects of the indexer benchmarks other than
// Replace: 10,000, 100 per app value, 1,000 per namespace.
const storeSize = 10_000

// objects returns objects 0..n-1 at resourceVersion rv with app shift.
func objects(n, rv, appShift int) []any {
	objs := make([]any, n)
	for i := range objs {
		objs[i] = NewObject(i, rv, appShift)
	}
	return objs
}

// filled returns a new indexer of impl holding objs.
func filled(b *testing.B, impl storeImpl, objs []any) store {
	b.Helper()
	s := impl.newIndexer()
	for _, o := range objs {
		if err := s.Add(o); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// checkStore fails unless s holds exactly want (by identity), and both
// indexes file each object under its namespace and app label and nothing
// else.
func checkStore(b *testing.B, s store, want []any) {
	b.Helper()
	if got := len(s.ListKeys()); got != len(want) {
		b.Fatalf("store holds %d keys, want %d", got, len(want))
	}
	perApp := map[string]int{}
	perNS := map[string]int{}
	for _, o := range want {
		m, _ := meta.Accessor(o)
		key := m.GetNamespace() + "/" + m.GetName()
		got, ok, err := s.GetByKey(key)
		if err != nil || !ok || got != o {
			b.Fatalf("GetByKey(%s) = %v, %v, %v; want the last object stored", key, got, ok, err)
		}
		perApp[m.GetLabels()[AppLabel]]++
		perNS[m.GetNamespace()]++
	}
	for index, counts := range map[string]map[string]int{AppLabel: perApp, indexer.NamespaceIndex: perNS} {
		for v, n := range counts {
			objs, err := s.ByIndex(index, v)
			if err != nil {
				b.Fatal(err)
			}
			if len(objs) != n {
				b.Fatalf("ByIndex(%s, %s) has %d objects, want %d", index, v, len(objs), n)
			}
			for _, o := range objs {
				vals, _ := indexValue(index, o)
				if vals != v {
					b.Fatalf("ByIndex(%s, %s) returned an object filed under %s", index, v, vals)
				}
			}
		}
	}
}

func indexValue(index string, obj any) (string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", err
	}
	if index == AppLabel {
		return m.GetLabels()[AppLabel], nil
	}
	return m.GetNamespace(), nil
}

// BenchmarkIndexerAdd adds new objects to an indexer with two indexes,
// starting a new empty indexer every 10,000 adds (outside the timer), so
// each add files a new key and grows the maps as a starting informer's does.
func BenchmarkIndexerAdd(b *testing.B) {
	objs := objects(storeSize, 1, 0)
	for _, impl := range storeImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			s := impl.newIndexer()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i > 0 && i%storeSize == 0 {
					b.StopTimer()
					checkStore(b, s, objs)
					s = impl.newIndexer()
					b.StartTimer()
				}
				if err := s.Add(objs[i%storeSize]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			checkStore(b, s, objs[:(b.N-1)%storeSize+1])
		})
	}
}

// BenchmarkIndexerUpdate updates the objects of a full indexer (10,000
// objects, two indexes) in turn, each update a new object for the key, as a
// watch delivers. index=unchanged: only the resourceVersion changes, the
// object stays under the same index values. index=changed: its app label
// changes every time, so the key moves between index values.
func BenchmarkIndexerUpdate(b *testing.B) {
	for _, mode := range []string{"unchanged", "changed"} {
		// versions[v][i] is object i's version v; an update applies the
		// version after the one stored.
		versions := make([][]any, 2)
		for v := range versions {
			shift := 0
			if mode == "changed" {
				shift = v
			}
			versions[v] = objects(storeSize, v+2, shift)
		}
		initial := objects(storeSize, 1, 0)
		for _, impl := range storeImpls {
			b.Run(fmt.Sprintf("index=%s/impl=%s", mode, impl.name), func(b *testing.B) {
				s := filled(b, impl, initial)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if err := s.Update(versions[(i/storeSize+1)%2][i%storeSize]); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				want := make([]any, storeSize)
				copy(want, initial)
				for i := max(0, b.N-storeSize); i < b.N; i++ {
					want[i%storeSize] = versions[(i/storeSize+1)%2][i%storeSize]
				}
				checkStore(b, s, want)
			})
		}
	}
}

// BenchmarkIndexerByIndex reads the objects filed under one app value (100
// of the 10,000 objects) from a full indexer, cycling through the values.
func BenchmarkIndexerByIndex(b *testing.B) {
	objs := objects(storeSize, 1, 0)
	apps := make([]string, Apps)
	for i := range apps {
		apps[i] = App(i)
	}
	for _, impl := range storeImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			s := filled(b, impl, objs)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				got, err := s.ByIndex(AppLabel, apps[i%Apps])
				if err != nil || len(got) != storeSize/Apps {
					b.Fatalf("ByIndex(app, %s) = %d objects, %v; want %d", apps[i%Apps], len(got), err, storeSize/Apps)
				}
			}
		})
	}
}

// BenchmarkIndexerReplace replaces the whole contents of an indexer with two
// indexes by a new list of 10,000 or 100,000 objects, as a relist does,
// alternating between two lists.
func BenchmarkIndexerReplace(b *testing.B) {
	for _, n := range []int{10_000, big(100_000)} {
		lists := [][]any{objects(n, 1, 0), objects(n, 2, 1)}
		for _, impl := range storeImpls {
			b.Run(fmt.Sprintf("objects=%d/impl=%s", n, impl.name), func(b *testing.B) {
				s := filled(b, impl, lists[1])
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if err := s.Replace(lists[i%2], "2"); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				checkStore(b, s, lists[(b.N-1)%2])
			})
		}
	}
}
