package indexer_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleIndexer shows what ExampleIndexer prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleIndexer(t *testing.T) {
	exampleoutput.Show(t, "ExampleIndexer", ExampleIndexer)
}

// TestOutputOfExampleIndexer_indexFuncError shows what ExampleIndexer_indexFuncError prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleIndexer_indexFuncError(t *testing.T) {
	exampleoutput.Show(t, "ExampleIndexer_indexFuncError", ExampleIndexer_indexFuncError)
}

// TestOutputOfExampleIndexer_AddIndexers shows what ExampleIndexer_AddIndexers prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleIndexer_AddIndexers(t *testing.T) {
	exampleoutput.Show(t, "ExampleIndexer_AddIndexers", ExampleIndexer_AddIndexers)
}

// TestOutputOfExampleLister shows what ExampleLister prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleLister(t *testing.T) {
	exampleoutput.Show(t, "ExampleLister", ExampleLister)
}

// TestOutputOfExampleMetaNamespaceKeyFunc shows what ExampleMetaNamespaceKeyFunc prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleMetaNamespaceKeyFunc(t *testing.T) {
	exampleoutput.Show(t, "ExampleMetaNamespaceKeyFunc", ExampleMetaNamespaceKeyFunc)
}

// TestOutputOfExampleNewUndeltaStore shows what ExampleNewUndeltaStore prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNewUndeltaStore(t *testing.T) {
	exampleoutput.Show(t, "ExampleNewUndeltaStore", ExampleNewUndeltaStore)
}

// TestOutputOfExampleNewTypedIndexer shows what ExampleNewTypedIndexer prints.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNewTypedIndexer(t *testing.T) {
	exampleoutput.Show(t, "ExampleNewTypedIndexer", ExampleNewTypedIndexer)
}

// TestOutputOfExampleNewTTLStore shows what ExampleNewTTLStore prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNewTTLStore(t *testing.T) {
	exampleoutput.Show(t, "ExampleNewTTLStore", ExampleNewTTLStore)
}

// TestOutputOfExampleMutationCache shows what ExampleMutationCache prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleMutationCache(t *testing.T) {
	exampleoutput.Show(t, "ExampleMutationCache", ExampleMutationCache)
}
