package informersuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/informersuite"
)

// The behaviours an informer is graded on.
func ExampleBehaviours() {
	for _, b := range informersuite.Behaviours(informersuite.Reference) {
		fmt.Println(b.Name)
	}
	// Output:
	// CacheHoldsTheListAfterSync
	// HasSyncedWaitsForTheInitialList
	// HasSyncedOnlyOnceTheCacheHoldsTheList
	// InitialListArrivesAsInitialAdds
	// LiveEventsReachHandlersInOrder
	// CacheIsUpdatedBeforeHandlersAreCalled
	// MissedDeleteArrivesAsATombstone
	// RelistReportsWhatTheWatchMissed
	// SlowHandlerDoesNotHoldUpOthers
	// LateHandlerGetsTheCacheFirst
	// LateHandlerMissesNoChangeInFlight
	// OneObjectsChangesArriveInOrder
	// SafeToUseWhileRunning
	// RunStopsEverything
}
