//go:build labs_reference

package controllerlab

import "github.com/informerlab/informerlab/labs/suite/controllersuite"

// impl is the implementation graded: informerlab's FooReconciler, to prove
// the lab can be solved (go test -tags labs_reference), the validation,
// the Ready condition, observedGeneration and the Events included
// (samplecontroller/foo_reconciler.go, steps 3 and 8).
var impl = controllersuite.Reference
