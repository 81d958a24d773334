//go:build labs_reference

package workqueuelab

import (
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
	"github.com/informerlab/informerlab/workqueue"
)

// impl is the implementation graded: informerlab's, to prove the lab can
// be solved (go test -tags labs_reference).
var impl = workqueuesuite.Impl{
	NewQueue: func() workqueue.DelayingInterface[string] { return workqueue.NewDelaying[string]() },
}
