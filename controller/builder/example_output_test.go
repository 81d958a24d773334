package builder_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleBuilder shows what ExampleBuilder prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleBuilder(t *testing.T) {
	exampleoutput.Show(t, "ExampleBuilder", ExampleBuilder)
}
