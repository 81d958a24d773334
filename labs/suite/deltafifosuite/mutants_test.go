package deltafifosuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/deltafifosuite"
)

var mutants = map[string]deltafifosuite.Impl{
	// A queue that never consults the consumer's store: no tombstones
	// for known objects, nothing to resync, known deletions dropped.
	"ignores-known-objects": {New: func(kf indexer.KeyFunc, _ deltafifo.KeyListerGetter) deltafifosuite.Queue {
		return deltafifo.New(deltafifo.Options{KeyFunction: kf})
	}},
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, deltafifosuite.Behaviours(mutants[name]))
	}
}

func TestSuiteCatchesAQueueThatIgnoresTheStore(t *testing.T) {
	assert.Subset(t, grade.FailedInChild(t, "TestHelperMutant", "ignores-known-objects"), []string{
		"DeleteOfUnknownObjectIsDropped",
		"ReplaceTombstonesKnownObjectsMissingFromList",
		"ResyncQueuesSyncForIdleKnownObjects",
	})
}
