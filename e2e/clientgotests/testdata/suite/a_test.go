package suite

import (
	"strings"
	"testing"
)

type helper struct{}

func (helper) name() string { return strings.ToUpper("kept") }

type unused struct{}

var _ interface{ name() string } = helper{}

var _ interface{ name() string } = private{}

type private struct{}

func (private) name() string { return "" }

func TestKept(t *testing.T) { _ = helper{}.name() }

func TestListed(t *testing.T) { _ = private{} }

func BenchmarkAlwaysDropped(b *testing.B) {}

func ExampleKept() {
	// Output:
}
