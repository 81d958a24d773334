package controllersuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

func withSimple(configure func(*simple)) controllersuite.Impl {
	return controllersuite.Impl{NewReconciler: func(c *manager.Client, events recorder.EventRecorder) controller.Reconciler {
		r := &simple{c: c, events: events}
		configure(r)
		return r
	}}
}

// mutant is one entry of the catalogue: a mistake and the wrong
// Reconciler that makes it.
type mutant struct {
	grade.Mistake
	impl controllersuite.Impl
}

// catalogue is the mistakes a learner plausibly makes in lab 7, reading the
// README, the skeleton and the hints, and the behaviours that report each.
// A mutant may fail more than its entry names (without a finalizer,
// whether a stale cache recreates the Deployment of a deleted Foo is a
// race); the entry names what it must fail. A mistake found later belongs
// here.
var catalogue = []mutant{
	{Mistake: grade.Mistake{Name: "no-owner",
		What:    "the Deployment is created without an owner reference, so its events never come back to the Foo",
		Catches: []string{"TheFooControlsItsDeployment", "ScalesWithTheFoo", "RecreatesADeletedDeployment", "StatusReportsAvailableReplicas"}},
		impl: withSimple(func(r *simple) { r.noOwner = true })},
	{Mistake: grade.Mistake{Name: "no-finalizer",
		What:    "no finalizer: the Foo goes at once, and the cleanup is left to chance",
		Catches: []string{"KeepsItsFinalizerUntilCleanedUp"}},
		impl: withSimple(func(r *simple) { r.noFinalizer = true })},
	{Mistake: grade.Mistake{Name: "no-status",
		What:    "the Foo's status is never written",
		Catches: []string{"StatusReportsAvailableReplicas", "RetriesAfterAFailedWrite"}},
		impl: withSimple(func(r *simple) { r.noStatus = true })},
	{Mistake: grade.Mistake{Name: "any-owner",
		What:    "a Deployment of the right name is scaled whoever controls it",
		Catches: []string{"LeavesAForeignDeploymentAlone"}},
		impl: withSimple(func(r *simple) { r.anyOwner = true })},
	{Mistake: grade.Mistake{Name: "no-default",
		What:    "a nil spec.replicas is taken as 0",
		Catches: []string{"ReplicasDefaultToOne"}},
		impl: withSimple(func(r *simple) { r.noDefault = true })},
	{Mistake: grade.Mistake{Name: "swallow-errors",
		What:    "a failed write is logged and Reconcile returns nil, so the queue never retries it",
		Catches: []string{"RetriesAfterAFailedWrite"}},
		impl: withSimple(func(r *simple) { r.swallowErrors = true })},
	{Mistake: grade.Mistake{Name: "create-every-time",
		What:    "every Reconcile creates the Deployment and treats AlreadyExists as done, so nothing is ever scaled or reported",
		Catches: []string{"ScalesWithTheFoo", "StatusReportsAvailableReplicas"}},
		impl: withSimple(func(r *simple) { r.createEveryTime = true })},
	{Mistake: grade.Mistake{Name: "status-via-update",
		What:    "the status is written with Update, which a resource with a status subresource ignores",
		Catches: []string{"StatusReportsAvailableReplicas"}},
		impl: withSimple(func(r *simple) { r.statusViaUpdate = true })},
	{Mistake: grade.Mistake{Name: "name-from-foo",
		What:    "the Deployment is named after the Foo instead of spec.deploymentName",
		Catches: []string{"CreatesTheDeploymentItNames", "EachFooGetsItsOwnDeployment"}},
		impl: withSimple(func(r *simple) { r.nameFromFoo = true })},
	{Mistake: grade.Mistake{Name: "no-scale",
		What:    "replicas are set when the Deployment is created and never again",
		Catches: []string{"ScalesWithTheFoo"}},
		impl: withSimple(func(r *simple) { r.noScale = true })},
	{Mistake: grade.Mistake{Name: "status-from-spec",
		What:    "the status reports spec.replicas instead of the Deployment's available replicas",
		Catches: []string{"StatusComesFromTheDeployment"}},
		impl: withSimple(func(r *simple) { r.statusFromSpec = true })},
	{Mistake: grade.Mistake{Name: "status-every-reconcile",
		What:    "the status is written on every Reconcile, whether it changed or not",
		Catches: []string{"WritesNothingWhenNothingChanged"}},
		impl: withSimple(func(r *simple) { r.statusEveryTime = true })},
	{Mistake: grade.Mistake{Name: "blind-scale",
		What:    "the Deployment is scaled by updating a freshly built one, with no resourceVersion, over whatever is there",
		Catches: []string{"ScalesWithoutOverwritingOthers"}},
		impl: withSimple(func(r *simple) { r.blindScale = true })},
	{Mistake: grade.Mistake{Name: "replicas-left-to-server",
		What:    "a Foo without spec.replicas gets a Deployment without them, for the server to default, and is never scaled back to 1",
		Catches: []string{"DefaultsMissingReplicasItself"}},
		impl: withSimple(func(r *simple) { r.replicasLeftToServer = true })},
	{Mistake: grade.Mistake{Name: "gone-foo-is-error",
		What:    "a Foo that is not found is returned as an error, so a deleted Foo is retried with backoff forever",
		Catches: []string{"AGoneFooIsNotAnError"}},
		impl: withSimple(func(r *simple) { r.goneIsError = true })},
	{Mistake: grade.Mistake{Name: "cleanup-not-found-fails",
		What:    "cleanup returns the Delete's NotFound, so a Foo whose Deployment is already gone keeps its finalizer",
		Catches: []string{"DeletingAFooWhoseDeploymentIsGone"}},
		impl: withSimple(func(r *simple) { r.cleanupNotFoundFails = true })},
	{Mistake: grade.Mistake{Name: "cleanup-by-name",
		What:    "cleanup deletes the Deployment of the name the Foo gives, whoever controls it",
		Catches: []string{"DeletingAFooLeavesAForeignDeployment"}},
		impl: withSimple(func(r *simple) { r.cleanupByName = true })},
	{Mistake: grade.Mistake{Name: "invalid-spec-plain-error",
		What:    "an invalid spec is returned as a plain error, so the Foo is retried with backoff for ever",
		Catches: []string{"AnInvalidFooIsNotRetried"}},
		impl: withSimple(func(r *simple) { r.invalidRetried = true })},
	{Mistake: grade.Mistake{Name: "invalid-spec-ignored",
		What:    "an invalid spec is skipped without a word: no condition, no Event, no error",
		Catches: []string{"AnInvalidFooGetsNoDeploymentUntilFixed", "AFooMadeInvalidKeepsItsDeployment", "AnInvalidFooIsNotRetried"}},
		impl: withSimple(func(r *simple) { r.invalidIgnored = true })},
	{Mistake: grade.Mistake{Name: "invalid-spec-creates-deployment",
		What:    "the Deployment is created before the spec is checked, so an invalid Foo gets one",
		Catches: []string{"AnInvalidFooGetsNoDeploymentUntilFixed", "AFooMadeInvalidKeepsItsDeployment"}},
		impl: withSimple(func(r *simple) { r.invalidCreates = true })},
	{Mistake: grade.Mistake{Name: "no-observed-generation",
		What:    "status.observedGeneration is never written",
		Catches: []string{"ObservedGenerationFollowsEverySpecEdit", "ReadyOnlyWhenEveryReplicaIsAvailable", "AnInvalidFooGetsNoDeploymentUntilFixed"}},
		impl: withSimple(func(r *simple) { r.noObservedGeneration = true })},
	{Mistake: grade.Mistake{Name: "observed-generation-from-deployment",
		What:    "status.observedGeneration is copied from the Deployment's status, like availableReplicas",
		Catches: []string{"ObservedGenerationFollowsEverySpecEdit"}},
		impl: withSimple(func(r *simple) { r.observedFromDeployment = true })},
	{Mistake: grade.Mistake{Name: "status-compares-replicas-only",
		What:    "the status is written only when availableReplicas changes, so observedGeneration and the Ready condition lag behind the spec",
		Catches: []string{"ObservedGenerationFollowsEverySpecEdit", "AFooMadeInvalidKeepsItsDeployment"}},
		impl: withSimple(func(r *simple) { r.statusComparesReplicas = true })},
	{Mistake: grade.Mistake{Name: "ready-when-deployment-exists",
		What:    "Ready is True as soon as the Deployment exists, with no replica available",
		Catches: []string{"ReadyOnlyWhenEveryReplicaIsAvailable"}},
		impl: withSimple(func(r *simple) { r.readyWhenExists = true })},
	{Mistake: grade.Mistake{Name: "ready-from-stale-deployment-status",
		What:    "Ready is True when the Deployment's available count matches the Foo's replicas, whatever generation its status is of",
		Catches: []string{"ReadyOnlyWhenEveryReplicaIsAvailable"}},
		impl: withSimple(func(r *simple) { r.readyFromStaleStatus = true })},
	{Mistake: grade.Mistake{Name: "condition-rewritten-every-reconcile",
		What:    "the Ready condition is rebuilt with lastTransitionTime now on every Reconcile, so the status is written every time",
		Catches: []string{"ReadyKeepsItsTransitionTimeUntilItFlips", "WritesNothingWhenNothingChanged", "SyncedOnlyWhenSomethingChanged"}},
		impl: withSimple(func(r *simple) { r.conditionEveryReconcile = true })},
	{Mistake: grade.Mistake{Name: "no-events",
		What:    "no Event is recorded",
		Catches: []string{"AnInvalidFooGetsNoDeploymentUntilFixed", "WarnsOfAForeignDeployment", "SyncedOnlyWhenSomethingChanged"}},
		impl: withSimple(func(r *simple) { r.noEvents = true })},
	{Mistake: grade.Mistake{Name: "warnings-as-normal",
		What:    "InvalidSpec and ErrResourceExists are recorded as Normal Events",
		Catches: []string{"AnInvalidFooGetsNoDeploymentUntilFixed", "AFooMadeInvalidKeepsItsDeployment", "WarnsOfAForeignDeployment"}},
		impl: withSimple(func(r *simple) { r.warningsAsNormal = true })},
	{Mistake: grade.Mistake{Name: "synced-every-reconcile",
		What:    "Synced is recorded on every Reconcile that ends well, whether it changed something or not",
		Catches: []string{"SyncedOnlyWhenSomethingChanged"}},
		impl: withSimple(func(r *simple) { r.syncedEveryReconcile = true })},
}

func TestHelperMutant(t *testing.T) {
	impls := map[string]controllersuite.Impl{"simple": withSimple(func(*simple) {})}
	for _, m := range catalogue {
		impls[m.Name] = m.impl
	}
	grade.GradeMutant(t, controllersuite.Behaviours, impls)
}

// TestASimpleReconcilerPasses: the lab asks for no more than a short
// Reconcile, not for everything the FooReconciler does.
func TestASimpleReconcilerPasses(t *testing.T) {
	assert.Empty(t, grade.FailedInChild(t, "TestHelperMutant", "simple"))
}

// TestSuiteCatchesEveryMistake grades every mutant of the catalogue, each
// within the grader's watchdog, and checks that each behaviour its entry
// names is reported failed.
func TestSuiteCatchesEveryMistake(t *testing.T) {
	mistakes := make([]grade.Mistake, len(catalogue))
	for i, m := range catalogue {
		mistakes[i] = m.Mistake
	}
	grade.CatchesMistakes(t, "TestHelperMutant", mistakes)
}
