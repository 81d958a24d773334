package indexer_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/indexersuite"
)

// TestSuite runs the behaviours labs/1-indexer grades learners on: the
// grader can never ask for something this indexer does not do.
func TestSuite(t *testing.T) {
	grade.Reference(t, indexersuite.Behaviours(indexersuite.Reference))
}
