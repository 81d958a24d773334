package controller_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleController shows what ExampleController prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleController(t *testing.T) {
	exampleoutput.Show(t, "ExampleController", ExampleController)
}
