package deltafifolab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/deltafifosuite"
)

// TestGrade grades the DeltaFIFO: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "4-deltafifo", deltafifosuite.Behaviours(impl))
}
