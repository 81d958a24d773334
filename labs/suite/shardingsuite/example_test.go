package shardingsuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/shardingsuite"
)

// The behaviours graded; an Impl with a nil constructor is enough to list
// them (running one would fail).
func ExampleBehaviours() {
	bs := shardingsuite.Behaviours(shardingsuite.Impl{})
	fmt.Println(bs[0].Name+":", bs[0].Want)
	fmt.Println(len(bs), "behaviours")
	// Output:
	// UnheldBucketIsRefused: a key of a bucket held by no one here (or out of range) is not ours: Admit says BucketNotOurs and counts nothing
	// 18 behaviours
}
