package samplecontroller_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleNew shows what ExampleNew prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNew(t *testing.T) {
	exampleoutput.Show(t, "ExampleNew", ExampleNew)
}
