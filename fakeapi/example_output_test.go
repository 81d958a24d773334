package fakeapi_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExample shows what Example prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExample(t *testing.T) {
	exampleoutput.Show(t, "Example", Example)
}

// TestOutputOfExampleServer_Handler shows what ExampleServer_Handler prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleServer_Handler(t *testing.T) {
	exampleoutput.Show(t, "ExampleServer_Handler", ExampleServer_Handler)
}

// TestOutputOfExampleServer_SilentResource shows what ExampleServer_SilentResource prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleServer_SilentResource(t *testing.T) {
	exampleoutput.Show(t, "ExampleServer_SilentResource", ExampleServer_SilentResource)
}
