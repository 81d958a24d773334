package workqueue_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
	"github.com/informerlab/informerlab/workqueue"
)

// TestSuite runs the behaviours labs/2-workqueue grades learners on.
func TestSuite(t *testing.T) {
	grade.Reference(t, workqueuesuite.Behaviours(workqueuesuite.Impl{
		NewQueue: func() workqueue.DelayingInterface[string] { return workqueue.NewDelaying[string]() },
	}))
}
