package informer_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/informersuite"
)

// TestSuite runs the behaviours labs/6-informer grades learners on.
func TestSuite(t *testing.T) {
	grade.Reference(t, informersuite.Behaviours(informersuite.Reference))
}
