package deltafifo_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/deltafifosuite"
)

// TestSuite runs the behaviours labs/4-deltafifo grades learners on.
func TestSuite(t *testing.T) {
	grade.Reference(t, deltafifosuite.Behaviours(deltafifosuite.Reference))
}
