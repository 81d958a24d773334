// Package walkthrough has no code of its own, only tests: each one
// demonstrates, against the real fakeapi server and through the exported
// API of the other packages, one thing learners most often get wrong about
// informers and controllers (docs/confusions.md) or one fault and what the
// informer does about it (docs/failure-modes.md). It spans every step of
// the diagram.
//
//	fakeapi (faults) --1--> Reflector --2--> DeltaFIFO --3--> informer --4,5--> cache
//	                                                             | 6
//	                                                   handlers --7--> workqueue --8--> worker --9--> cache
//
// # How it works
//
// Every test builds the pieces it needs from the exported API — a
// fakeapi.Server, an informer.SharedIndexInformer on one of its resources, a
// recording event handler, a workqueue or a controller.Controller — then
// provokes the situation (a silent delete, a compaction, a hung watch, a slow
// handler, a status write) and asserts what each piece did. Time-dependent
// tests run inside testing/synctest bubbles: the server's watch goroutines,
// bookmarks and timeouts, the Reflector's backoff and resync timers and the
// workqueue's delays all run on the bubble's fake clock, so a test can wait
// an hour in no time and assert a delay to the nanosecond.
//
// The fifteen confusions, one test each (docs/confusions.md):
//
//  1. TestConfusionResyncIsNotARelist
//  2. TestConfusionTombstoneAfterRelist
//  3. TestConfusionQueueHoldsKeys
//  4. TestConfusionCacheNeverSyncs
//  5. TestConfusionSlowHandlerBufferGrows
//  6. TestConfusionLevelNotEdgeTriggered
//  7. TestConfusionStaleReadAfterOwnWrite
//  8. TestConfusionMutatingACachedObject
//  9. TestConfusionForgetDoneAddRateLimited
//  10. TestConfusionDeletionWithFinalizers
//  11. TestConfusionResourceVersionRules
//  12. TestConfusionInformerSilentlyStops
//  13. TestConfusionStatusUpdateRetriggersReconcile
//  14. TestConfusionLabelChangeOnFilteredWatchLooksLikeDelete
//  15. TestConfusionCacheMemoryAndTransforms
//
// The failure modes that the reflector, informer and fakeapi packages do
// not already drive through fakeapi (docs/failure-modes.md):
// TestFailureWatchThatCannotBeOpened, TestFailureExpiredListIsRetriedAtOnceFromEmpty,
// TestFailureCutOffWatchRewatchesFromItsLastResourceVersion,
// TestFailureSlowServerDelaysTheInitialSync, TestFailureServerGoneLeavesTheCacheAsItWas
// and TestFailureFailedWriteIsRetriedWithBackoff.
//
// # Guarantees
//
//   - Every test asserts behaviour and fails if the behaviour changes; none
//     only prints.
//   - No test sleeps to wait for something: inside a bubble, time.Sleep
//     moves the fake clock and synctest.Wait waits for every goroutine to
//     block. The Example, outside a bubble, waits on a channel with a
//     deadline.
//   - Every goroutine a test starts has stopped when it returns.
//
// # Read next
//
// Run them all with
//
//	go test ./walkthrough -run TestConfusion -v
//
// then read docs/confusions.md, which explains each one and ends every
// section with the command that runs its test, and docs/exercises.md, whose
// exercises start from these files.
package walkthrough
