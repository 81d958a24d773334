package manager_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleManager_GetClient shows what ExampleManager_GetClient prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleManager_GetClient(t *testing.T) {
	exampleoutput.Show(t, "ExampleManager_GetClient", ExampleManager_GetClient)
}
