//go:build !labs_reference

package workqueuelab

import (
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
	"github.com/informerlab/informerlab/workqueue"
)

// impl is the implementation graded: yours.
var impl = workqueuesuite.Impl{
	NewQueue: func() workqueue.DelayingInterface[string] { return New[string]() },
}
