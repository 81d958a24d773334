package controllerlab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

// TestGrade grades the Reconciler: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "7-controller", controllersuite.Behaviours(impl))
}
