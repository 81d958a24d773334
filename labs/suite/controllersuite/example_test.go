package controllersuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

// The behaviours a Foo controller is graded on.
func ExampleBehaviours() {
	for _, b := range controllersuite.Behaviours(controllersuite.Reference) {
		fmt.Println(b.Name)
	}
	// Output:
	// CreatesTheDeploymentItNames
	// TheFooControlsItsDeployment
	// ReplicasDefaultToOne
	// ScalesWithTheFoo
	// RecreatesADeletedDeployment
	// StatusReportsAvailableReplicas
	// LeavesAForeignDeploymentAlone
	// KeepsItsFinalizerUntilCleanedUp
	// DeletingTheFooRemovesItsDeployment
	// RetriesAfterAFailedWrite
	// EachFooGetsItsOwnDeployment
	// StatusComesFromTheDeployment
	// WritesNothingWhenNothingChanged
	// ScalesWithoutOverwritingOthers
	// DefaultsMissingReplicasItself
	// AGoneFooIsNotAnError
	// DeletingAFooWhoseDeploymentIsGone
	// DeletingAFooLeavesAForeignDeployment
	// AnInvalidFooGetsNoDeploymentUntilFixed
	// AFooMadeInvalidKeepsItsDeployment
	// AnInvalidFooIsNotRetried
	// ObservedGenerationFollowsEverySpecEdit
	// ReadyOnlyWhenEveryReplicaIsAvailable
	// ReadyKeepsItsTransitionTimeUntilItFlips
	// WarnsOfAForeignDeployment
	// SyncedOnlyWhenSomethingChanged
}
