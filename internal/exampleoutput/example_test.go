package exampleoutput_test

import (
	"fmt"
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// ExampleShow stands for any Example whose printed lines are the lesson.
func ExampleShow() {
	fmt.Println("queued: 2")
	fmt.Println("default/web: synced after 1 attempt(s)")
	// Output:
	// queued: 2
	// default/web: synced after 1 attempt(s)
}

// TestOutputOfExampleShow is the form every TestOutputOf test takes: with
// -v it logs the two lines ExampleShow prints, after checking them against
// its // Output: comment.
// Diagram: none. client-go: none.
func TestOutputOfExampleShow(t *testing.T) {
	exampleoutput.Show(t, "ExampleShow", ExampleShow)
}
