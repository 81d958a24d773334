package ratelimitersuite_test

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/ratelimitersuite"
)

// The behaviours graded; an Impl with nil constructors is enough to list
// them (running one would fail).
func ExampleBehaviours() {
	bs := ratelimitersuite.Behaviours(ratelimitersuite.Impl{})
	fmt.Println(bs[0].Name+":", bs[0].Want)
	fmt.Println(len(bs), "behaviours")
	// Output:
	// ExponentialDoublesPerFailure: the exponential limiter's delays for one item are base, 2·base, 4·base, ..., and NumRequeues counts them
	// 17 behaviours
}
