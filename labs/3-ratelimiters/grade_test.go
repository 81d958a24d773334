package ratelimiterlab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/ratelimitersuite"
)

// TestGrade grades the limiters and the queue: run `go test` in this
// directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "3-ratelimiters", ratelimitersuite.Behaviours(impl))
}
