package informer_test

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

// TestOutputOfExampleNewInformerWithOptions shows what
// ExampleNewInformerWithOptions prints.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNewInformerWithOptions(t *testing.T) {
	exampleoutput.Show(t, "ExampleNewInformerWithOptions", ExampleNewInformerWithOptions)
}

// TestOutputOfExampleWaitFor shows what ExampleWaitFor prints.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleWaitFor(t *testing.T) {
	exampleoutput.Show(t, "ExampleWaitFor", ExampleWaitFor)
}

// TestOutputOfExampleNewTypedSharedIndexInformer shows what
// ExampleNewTypedSharedIndexInformer prints.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNewTypedSharedIndexInformer(t *testing.T) {
	exampleoutput.Show(t, "ExampleNewTypedSharedIndexInformer", ExampleNewTypedSharedIndexInformer)
}

// TestOutputOfExampleNewInformerName shows what ExampleNewInformerName prints.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleNewInformerName(t *testing.T) {
	exampleoutput.Show(t, "ExampleNewInformerName", ExampleNewInformerName)
}
