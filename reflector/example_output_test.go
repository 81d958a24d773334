package reflector_test

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

// TestOutputOfExample_fakeapi shows what Example_fakeapi prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExample_fakeapi(t *testing.T) {
	exampleoutput.Show(t, "Example_fakeapi", Example_fakeapi)
}

// TestOutputOfExampleWidenedShard shows what ExampleWidenedShard prints: go
// test -v shows an Example's output only when it is wrong.
// Diagram: step 1. client-go: none.
func TestOutputOfExampleWidenedShard(t *testing.T) {
	exampleoutput.Show(t, "ExampleWidenedShard", ExampleWidenedShard)
}
