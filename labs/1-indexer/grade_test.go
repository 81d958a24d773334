package indexerlab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/indexersuite"
)

// TestGrade grades the Indexer: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "1-indexer", indexersuite.Behaviours(impl))
}
