package controllerlab

import (
	"fmt"

	"github.com/informerlab/informerlab/labs/suite/controllersuite"
)

// The first behaviours this lab grades, in the order to tackle them; run
// go test in this directory for your score.
func Example() {
	bs := controllersuite.Behaviours(impl)
	for _, b := range bs[:3] {
		fmt.Println(b.Name)
	}
	fmt.Println("...", len(bs), "in all")
	// Output:
	// CreatesTheDeploymentItNames
	// TheFooControlsItsDeployment
	// ReplicasDefaultToOne
	// ... 26 in all
}
