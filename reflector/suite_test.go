package reflector_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
)

// TestSuite runs the behaviours labs/5-reflector grades learners on.
func TestSuite(t *testing.T) {
	grade.Reference(t, reflectorsuite.Behaviours(reflectorsuite.Reference))
}
