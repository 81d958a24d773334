// Package exampleoutput lets a test show what an Example prints.
//
// go test checks an Example's output against its // Output: comment, and
// prints that output only when the two differ: with -v a passing Example
// shows nothing but its name. The teaching docs point readers at Examples
// whose printed lines are the lesson, so each such package has a test named
// TestOutputOf<Example> that calls [Show]:
//
//	func TestOutputOfExampleDeltaFIFO(t *testing.T) {
//		exampleoutput.Show(t, "ExampleDeltaFIFO", ExampleDeltaFIFO)
//	}
//
// The test's name contains the Example's, so the command the docs give for
// the Example (go test ./deltafifo -run ExampleDeltaFIFO -v) selects it too
// and prints the lines.
//
// # Guarantees
//
//   - Show fails the test if the package's _test.go files have no Example
//     of that name with an // Output: comment, or if what the function
//     prints differs from that comment (compared as go test compares it,
//     ignoring the order of lines for // Unordered output:).
//   - Show replaces os.Stdout while the Example runs, as go test does for
//     Examples: it must not be called from parallel tests.
package exampleoutput
