package samplecontroller_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

// TestSuite runs the behaviours labs/7-controller grades learners on,
// against the FooReconciler.
func TestSuite(t *testing.T) {
	grade.Reference(t, controllersuite.Behaviours(controllersuite.Reference))
}
