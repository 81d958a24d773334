package reflectorlab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
)

// TestGrade grades the Reflector: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "5-reflector", reflectorsuite.Behaviours(impl))
}
