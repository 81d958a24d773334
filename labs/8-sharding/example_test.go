package shardinglab

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/shardingsuite"
)

// The first behaviours this lab grades, in the order to tackle them; run
// go test in this directory for your score.
func Example() {
	bs := shardingsuite.Behaviours(impl)
	for _, b := range bs[:3] {
		fmt.Println(b.Name)
	}
	fmt.Println("...", len(bs), "in all")
	// Output:
	// UnheldBucketIsRefused
	// GainedBucketWaitsForSync
	// StaleRenewalIsRefused
	// ... 18 in all
}
