package reflectorsuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
)

// The behaviours a Reflector is graded on.
func ExampleBehaviours() {
	for _, b := range reflectorsuite.Behaviours(reflectorsuite.Reference) {
		fmt.Println(b.Name)
	}
	// Output:
	// ListReplacesTheStore
	// WatchStartsAtTheListResourceVersion
	// WatchEventsReachTheStore
	// ResourceVersionFollowsEvents
	// ClosedWatchResumesWithoutRelist
	// ExpiredResourceVersionRelists
	// RelistWaitsABackoffAfterExpiry
	// RelistAsksForTheLastResourceVersion
	// TooManyRequestsRewatchesWithoutRelist
	// CleanWatchEndIsResumedAtOnce
	// MatchesInformerlabOnRandomOutcomes
	// WatchThatEndsAtOnceIsBackedOff
	// EveryWatchIsStopped
	// WatchErrorEventRelists
	// FailedListIsRetried
	// BackoffGrowsWhileTheServerIsDown
	// RunReturnsWhenCancelled
	// LastSyncResourceVersionIsSafeToRead
	// BookmarksMoveTheResourceVersion
}
