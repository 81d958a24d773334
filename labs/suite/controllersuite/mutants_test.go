package controllersuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

func withSimple(configure func(*simple)) controllersuite.Impl {
	return controllersuite.Impl{NewReconciler: func(c *controller.Client) controller.Reconciler {
		r := &simple{c: c}
		configure(r)
		return r
	}}
}

var mutants = map[string]controllersuite.Impl{
	"simple":       withSimple(func(*simple) {}),
	"no-owner":     withSimple(func(r *simple) { r.noOwner = true }),
	"no-finalizer": withSimple(func(r *simple) { r.noFinalizer = true }),
	"no-status":    withSimple(func(r *simple) { r.noStatus = true }),
	"any-owner":    withSimple(func(r *simple) { r.anyOwner = true }),
	"no-default":   withSimple(func(r *simple) { r.noDefault = true }),
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, controllersuite.Behaviours(mutants[name]))
	}
}

// TestASimpleReconcilerPasses: the lab asks for no more than a short
// Reconcile, not for everything the FooReconciler does.
func TestASimpleReconcilerPasses(t *testing.T) {
	assert.Empty(t, grade.FailedInChild(t, "TestHelperMutant", "simple"))
}

// TestSuiteCatchesBrokenReconcilers checks the behaviours each mutant
// must fail. A mutant may fail more (without a finalizer, whether a
// stale cache recreates the Deployment of a deleted Foo is a race), so
// the check is that these are among the failures.
func TestSuiteCatchesBrokenReconcilers(t *testing.T) {
	for mutant, mustFail := range map[string][]string{
		"no-owner":     {"TheFooControlsItsDeployment", "ScalesWithTheFoo", "RecreatesADeletedDeployment", "StatusReportsAvailableReplicas"},
		"no-finalizer": {"KeepsItsFinalizerUntilCleanedUp"},
		"no-status":    {"StatusReportsAvailableReplicas"},
		"any-owner":    {"LeavesAForeignDeploymentAlone"},
		"no-default":   {"ReplicasDefaultToOne"},
	} {
		assert.Subset(t, grade.FailedInChild(t, "TestHelperMutant", mutant), mustFail, mutant)
	}
}
