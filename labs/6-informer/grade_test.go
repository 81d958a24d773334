package informerlab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/informersuite"
)

// TestGrade grades the informer: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "6-informer", informersuite.Behaviours(impl))
}
