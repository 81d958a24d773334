package reflectorlab

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
)

// The first behaviours this lab grades, in the order to tackle them; run
// go test in this directory for your score.
func Example() {
	bs := reflectorsuite.Behaviours(impl)
	for _, b := range bs[:3] {
		fmt.Println(b.Name)
	}
	fmt.Println("...", len(bs), "in all")
	// Output:
	// ListReplacesTheStore
	// WatchStartsAtTheListResourceVersion
	// WatchEventsReachTheStore
	// ... 19 in all
}
