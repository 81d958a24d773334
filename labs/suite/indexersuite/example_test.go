package indexersuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/indexersuite"
)

// The behaviours an Indexer is graded on, here for informerlab's own.
func ExampleBehaviours() {
	bs := indexersuite.Behaviours(indexersuite.Reference)
	for _, b := range bs[:3] {
		fmt.Printf("%s: %s\n", b.Name, b.Want)
	}
	fmt.Println(len(bs), "behaviours")
	// Output:
	// AddThenGetByKey: an added object is found by its key (GetByKey) and by an object with that key (Get)
	// AddAndUpdateAreUpserts: Add and Update both store the object under its key, replacing what was there
	// DeleteRemovesByKey: Delete removes the object with the given object's key, whatever its contents; deleting an absent key is not an error
	// 18 behaviours
}
