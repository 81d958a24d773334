package workqueuelab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
)

// TestGrade grades the Queue: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "2-workqueue", workqueuesuite.Behaviours(impl))
}
