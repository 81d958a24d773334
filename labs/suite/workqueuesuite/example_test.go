package workqueuesuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
)

// The behaviours a workqueue is graded on, here for informerlab's own.
func ExampleBehaviours() {
	bs := workqueuesuite.Behaviours(workqueuesuite.Reference)
	for _, b := range bs[:2] {
		fmt.Printf("%s: %s\n", b.Name, b.Want)
	}
	fmt.Println(len(bs), "behaviours")
	// Output:
	// GetHandsOutItemsInOrder: Get returns waiting items oldest first, and Len counts the waiting ones
	// AddCollapsesWhileWaiting: adding an item that is already waiting does nothing: it keeps its place and is handed out once
	// 20 behaviours
}
