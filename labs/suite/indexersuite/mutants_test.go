package indexersuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/indexersuite"
)

// deleteThenAdd writes an update as a Delete and an Add: when the Add
// fails, the old object is already gone.
type deleteThenAdd struct{ indexer.Indexer }

func (d deleteThenAdd) Update(obj any) error {
	if err := d.Delete(obj); err != nil {
		return err
	}
	return d.Add(obj)
}

// replaceByAdding adds the listed objects one by one and removes nothing.
type replaceByAdding struct{ indexer.Indexer }

func (r replaceByAdding) Replace(list []any, _ string) error {
	for _, o := range list {
		if err := r.Add(o); err != nil {
			return err
		}
	}
	return nil
}

func wrap(fn func(indexer.Indexer) indexersuite.Indexer) indexersuite.Impl {
	return indexersuite.Impl{NewIndexer: func(kf indexer.KeyFunc, ix indexer.Indexers) indexersuite.Indexer {
		return fn(indexer.NewIndexer(kf, ix))
	}}
}

var mutants = map[string]indexersuite.Impl{
	"delete-then-add":   wrap(func(i indexer.Indexer) indexersuite.Indexer { return deleteThenAdd{i} }),
	"replace-by-adding": wrap(func(i indexer.Indexer) indexersuite.Indexer { return replaceByAdding{i} }),
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, indexersuite.Behaviours(mutants[name]))
	}
}

func TestSuiteCatchesBrokenIndexers(t *testing.T) {
	assert.Equal(t, []string{"FailingIndexFuncRejectsWrite"},
		grade.FailedInChild(t, "TestHelperMutant", "delete-then-add"))
	assert.Equal(t, []string{"ReplaceSwapsWholeContents", "ReplaceIsAllOrNothing"},
		grade.FailedInChild(t, "TestHelperMutant", "replace-by-adding"))
}
