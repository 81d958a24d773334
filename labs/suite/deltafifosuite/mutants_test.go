package deltafifosuite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/deltafifosuite"
)

// mutant is one entry of the catalogue: a mistake and the wrong queue
// that makes it.
type mutant struct {
	grade.Mistake
	impl deltafifosuite.Impl
}

// learner is the learner's queue of learner_test.go with the mistakes m.
func learner(m mistakes) deltafifosuite.Impl {
	return deltafifosuite.Impl{New: func(kf indexer.KeyFunc, known deltafifo.KeyListerGetter) deltafifosuite.Queue {
		if m.ignoreKnown {
			known = nil
		}
		return newFIFO(kf, known, m)
	}}
}

// catalogue is the mistakes a learner plausibly makes in lab 4, reading the
// README, the skeleton and the hints, and the behaviours that report each.
// A mistake found later belongs here.
var catalogue = []mutant{
	{Mistake: grade.Mistake{Name: "ignores-known-objects",
		What:    "the queue never consults the consumer's store: no tombstones for known objects, nothing to resync, known deletions dropped",
		Catches: []string{"DeleteOfUnknownObjectIsDropped", "ReplaceTombstonesKnownObjectsMissingFromList", "ResyncQueuesSyncForIdleKnownObjects"}},
		impl: learner(mistakes{ignoreKnown: true})},
	{Mistake: grade.Mistake{Name: "replace-as-it-goes",
		What:    "Replace keys and queues each listed object in one loop, so a bad object half way leaves the first half queued",
		Catches: []string{"ReplaceIsAllOrNothing"}},
		impl: learner(mistakes{replaceAsItGoes: true})},
	{Mistake: grade.Mistake{Name: "close-stops-pop",
		What:    "Pop returns ErrFIFOClosed as soon as the queue is closed, dropping the keys still queued",
		Catches: []string{"PopHandsOutWhatIsQueuedAfterClose"}},
		impl: learner(mistakes{closeStopsPop: true})},
	{Mistake: grade.Mistake{Name: "process-unlocked",
		What:    "Pop releases the lock before calling process, so a Replace or Resync can run against a store process has half updated",
		Catches: []string{"ProcessRunsWithTheQueueLocked"}},
		impl: learner(mistakes{processUnlocked: true})},
	{Mistake: grade.Mistake{Name: "nested-tombstone",
		What:    "Replace wraps a key's newest object in a tombstone even when that object is already a tombstone",
		Catches: []string{"TombstonesAreNeverNested"}},
		impl: learner(mistakes{nestedTombstone: true})},
	{Mistake: grade.Mistake{Name: "has-synced-locks",
		What:    "HasSynced takes the queue's lock, as client-go's does, and deadlocks when called inside process",
		Catches: []string{"HasSyncedAfterInitialListIsProcessed", "HasSyncedDoesNotWaitForTheLock"}},
		impl: learner(mistakes{hasSyncedLocks: true})},
	{Mistake: grade.Mistake{Name: "has-synced-unguarded",
		What:    "HasSynced reads the initial-list bookkeeping with no lock and no atomic: a data race with Pop",
		Catches: []string{"SafeForAProducerAndAConsumer"}, NeedsRace: true},
		impl: learner(mistakes{hasSyncedUnguarded: true})},
	{Mistake: grade.Mistake{Name: "has-synced-counts-deltas",
		What:    "the initial list's count is the number of deltas queued when the first Replace ends, not of keys, so a key listed twice (or with deltas before the list) keeps HasSynced false",
		Catches: []string{"HasSyncedCountsKeysNotDeltas", "MatchesInformerlabOnRandomSequences"}},
		impl: learner(mistakes{hasSyncedCountsDeltas: true})},
	{Mistake: grade.Mistake{Name: "count-before-process",
		What:    "Pop counts an initial key as processed before calling process, so HasSynced is true while the last one is still being handled",
		Catches: []string{"HasSyncedAfterInitialListIsProcessed"}},
		impl: learner(mistakes{countBeforeProcess: true})},
	{Mistake: grade.Mistake{Name: "delete-anything",
		What:    "Delete queues a deletion whether or not anyone knows the object",
		Catches: []string{"DeleteOfUnknownObjectIsDropped"}},
		impl: learner(mistakes{deleteAnything: true})},
	{Mistake: grade.Mistake{Name: "no-delete-collapse",
		What:    "two Deleted deltas in a row are both kept",
		Catches: []string{"ConsecutiveDeletesCollapse"}},
		impl: learner(mistakes{noDeleteCollapse: true})},
	{Mistake: grade.Mistake{Name: "key-moves-to-the-back",
		What:    "a key that gets a new delta moves to the back of the line",
		Catches: []string{"DeltasAccumulateWithoutMovingInLine"}},
		impl: learner(mistakes{keyMovesToTheBack: true})},
	{Mistake: grade.Mistake{Name: "replace-skips-queued",
		What:    "Replace tombstones the known objects it does not list, but not the queued keys it does not list",
		Catches: []string{"ReplaceTombstonesQueuedObjectsMissingFromList", "TombstonesAreNeverNested"}},
		impl: learner(mistakes{replaceSkipsQueued: true})},
	{Mistake: grade.Mistake{Name: "resync-busy-keys",
		What:    "Resync queues a Sync for every known key, even one with newer deltas queued",
		Catches: []string{"ResyncQueuesSyncForIdleKnownObjects"}},
		impl: learner(mistakes{resyncBusyKeys: true})},
	{Mistake: grade.Mistake{Name: "every-replace-is-initial",
		What:    "every Replace restarts the initial-list count, so a relist's keys are popped as isInInitialList",
		Catches: []string{"OnlyTheFirstReplaceIsTheInitialList"}},
		impl: learner(mistakes{everyReplaceIsInitial: true})},
	{Mistake: grade.Mistake{Name: "close-without-broadcast",
		What:    "Close sets closed but wakes nobody, so a waiting Pop never returns",
		Catches: []string{"CloseWakesAWaitingPop"}},
		impl: learner(mistakes{closeWithoutBroadcast: true})},
}

func TestHelperMutant(t *testing.T) {
	impls := map[string]deltafifosuite.Impl{"learner": learner(mistakes{})}
	for _, m := range catalogue {
		impls[m.Name] = m.impl
	}
	grade.GradeMutant(t, deltafifosuite.Behaviours, impls)
}

// TestALearnersQueuePasses: a queue written from the README's hints, not
// informerlab's, passes every behaviour.
func TestALearnersQueuePasses(t *testing.T) {
	assert.Empty(t, grade.FailedInChild(t, "TestHelperMutant", "learner"))
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
