package exampleoutput

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExpectedOutputReadsTheOutputComment reads the // Output: comments of a
// small package's Examples.
// Diagram: none. client-go: none.
func TestExpectedOutputReadsTheOutputComment(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(`package x

import "fmt"

func ExampleOne() {
	fmt.Println("a")
	fmt.Println("b")
	// Output:
	// a
	// b
}

func ExampleTwo() {
	fmt.Println("b")
	fmt.Println("a")
	// Unordered output:
	// a
	// b
}

func ExampleSilent() {
}
`), 0o644))

	out, unordered, err := expectedOutput(dir, "ExampleOne")
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n", out)
	assert.False(t, unordered)
	_, unordered, err = expectedOutput(dir, "ExampleTwo")
	require.NoError(t, err)
	assert.True(t, unordered)
	_, _, err = expectedOutput(dir, "ExampleSilent")
	assert.ErrorContains(t, err, "no // Output: comment")
	_, _, err = expectedOutput(dir, "ExampleMissing")
	assert.ErrorContains(t, err, "no Example called ExampleMissing")
}

// TestCaptureReturnsWhatWasPrintedAndRestoresStdout captures a function's
// printing, including more than a pipe buffer holds.
// Diagram: none. client-go: none.
func TestCaptureReturnsWhatWasPrintedAndRestoresStdout(t *testing.T) {
	stdout := os.Stdout
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = 'x'
	}

	got, err := capture(func() {
		fmt.Println("hello")
		fmt.Print(string(big))
	})

	require.NoError(t, err)
	assert.Equal(t, "hello\n"+string(big), got)
	assert.Same(t, stdout, os.Stdout, "os.Stdout is restored")
}

// TestSameOutputComparesAsGoTestDoes trims space, and ignores line order
// only for unordered output.
// Diagram: none. client-go: none.
func TestSameOutputComparesAsGoTestDoes(t *testing.T) {
	assert.True(t, sameOutput("a\nb\n", "a\nb", false))
	assert.False(t, sameOutput("b\na\n", "a\nb", false))
	assert.True(t, sameOutput("b\na\n", "a\nb", true))
	assert.False(t, sameOutput("a\na\n", "a\nb", true))
}
