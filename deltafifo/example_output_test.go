package deltafifo_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleDeltaFIFO shows what ExampleDeltaFIFO prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleDeltaFIFO(t *testing.T) {
	exampleoutput.Show(t, "ExampleDeltaFIFO", ExampleDeltaFIFO)
}

// TestOutputOfExampleDeltaFIFO_Replace shows what ExampleDeltaFIFO_Replace prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleDeltaFIFO_Replace(t *testing.T) {
	exampleoutput.Show(t, "ExampleDeltaFIFO_Replace", ExampleDeltaFIFO_Replace)
}

// TestOutputOfExampleRealFIFO shows what ExampleRealFIFO prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleRealFIFO(t *testing.T) {
	exampleoutput.Show(t, "ExampleRealFIFO", ExampleRealFIFO)
}

// TestOutputOfExampleDeltaFIFO_Queued shows what ExampleDeltaFIFO_Queued prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleDeltaFIFO_Queued(t *testing.T) {
	exampleoutput.Show(t, "ExampleDeltaFIFO_Queued", ExampleDeltaFIFO_Queued)
}

// TestOutputOfExampleFIFO shows what ExampleFIFO prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleFIFO(t *testing.T) {
	exampleoutput.Show(t, "ExampleFIFO", ExampleFIFO)
}

// TestOutputOfExampleHeap shows what ExampleHeap prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleHeap(t *testing.T) {
	exampleoutput.Show(t, "ExampleHeap", ExampleHeap)
}
