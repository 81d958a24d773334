//go:build !labs_reference

package controllerlab

import (
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

// impl is the implementation graded: yours.
var impl = controllersuite.Impl{
	NewReconciler: func(c *manager.Client, events recorder.EventRecorder) controller.Reconciler {
		return NewFooReconciler(c, events)
	},
}
