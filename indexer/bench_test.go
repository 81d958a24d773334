package indexer_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
)

// The benchmarks use a store of benchObjects objects spread over
// benchNamespaces namespaces and benchApps apps, with two indexes.
const benchObjects, benchNamespaces, benchApps = 10_000, 100, 10

func newBenchIndexer() indexer.Indexer {
	return indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
		byApp:                  indexer.LabelIndexFunc("app"),
	})
}

// benchObjectSet returns benchObjects distinct objects; appOffset shifts every
// object's app label, so two sets with different offsets differ in one index.
func benchObjectSet(appOffset int) []*metav1.PartialObjectMetadata {
	objs := make([]*metav1.PartialObjectMetadata, benchObjects)
	for i := range objs {
		objs[i] = newObj(
			fmt.Sprintf("ns-%d", i%benchNamespaces),
			fmt.Sprintf("pod-%d", i),
			fmt.Sprintf("app=app-%d", (i+appOffset)%benchApps),
		)
	}
	return objs
}

// BenchmarkIndexerAdd measures Add of a new key into a store of up to
// benchObjects objects with two indexes.
func BenchmarkIndexerAdd(b *testing.B) {
	objs := benchObjectSet(0)
	idx := newBenchIndexer()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i > 0 && i%benchObjects == 0 {
			b.StopTimer()
			idx = newBenchIndexer()
			b.StartTimer()
		}
		if err := idx.Add(objs[i%benchObjects]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexerUpdate measures Update of a stored key in a full store with
// two indexes: "unchanged" keeps every indexed value (the common resync or
// status update), "changed" moves the object to another app value each time.
func BenchmarkIndexerUpdate(b *testing.B) {
	for _, tc := range []struct {
		name    string
		offsets [2]int
	}{
		{"unchanged", [2]int{0, 0}},
		{"changed", [2]int{0, 1}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			versions := [2][]*metav1.PartialObjectMetadata{benchObjectSet(tc.offsets[0]), benchObjectSet(tc.offsets[1])}
			idx := newBenchIndexer()
			for _, obj := range versions[0] {
				if err := idx.Add(obj); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				// Alternate versions per pass over the objects, so every update
				// of a "changed" object really changes its value.
				version := versions[(i/benchObjects+1)%2]
				if err := idx.Update(version[i%benchObjects]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexerByIndex measures ByIndex on the namespace index of a full
// store: each call returns benchObjects/benchNamespaces = 100 objects.
func BenchmarkIndexerByIndex(b *testing.B) {
	idx := newBenchIndexer()
	for _, obj := range benchObjectSet(0) {
		if err := idx.Add(obj); err != nil {
			b.Fatal(err)
		}
	}
	namespaces := make([]string, benchNamespaces)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("ns-%d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		objs, err := idx.ByIndex(indexer.NamespaceIndex, namespaces[i%benchNamespaces])
		if err != nil || len(objs) != benchObjects/benchNamespaces {
			b.Fatalf("ByIndex: %d objects, %v", len(objs), err)
		}
	}
}
