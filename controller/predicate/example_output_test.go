package predicate_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExample shows what Example prints: go test -v shows an
// Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExample(t *testing.T) {
	exampleoutput.Show(t, "Example", Example)
}
