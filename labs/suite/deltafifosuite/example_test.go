package deltafifosuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/deltafifosuite"
)

// The behaviours a DeltaFIFO is graded on.
func ExampleBehaviours() {
	bs := deltafifosuite.Behaviours(deltafifosuite.Reference)
	for _, b := range bs[:2] {
		fmt.Printf("%s: %s\n", b.Name, b.Want)
	}
	fmt.Println(len(bs), "behaviours")
	// Output:
	// PopHandsOutKeysInArrivalOrder: Pop returns the keys in the order they first arrived, each with an Added delta holding the object
	// DeltasAccumulateWithoutMovingInLine: a key that gets more deltas while queued keeps its place, and Pop hands over its whole history, oldest first
	// 23 behaviours
}
