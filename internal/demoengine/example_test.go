package demoengine_test

import (
	"fmt"

	"github.com/informerlab/informerlab/internal/demoengine"
)

// Each scenario is a list of chapters; `demo --scenario NAME` plays one,
// `demo --list-scenarios` prints them all.
func ExampleScenarios() {
	for _, s := range demoengine.Scenarios()[:2] {
		fmt.Printf("%s: %d chapters, from %q to %q\n", s.Name, len(s.Chapters), s.Chapters[0], s.Chapters[len(s.Chapters)-1])
	}
	// Output:
	// story: 9 chapters, from "initial list and sync" to "delete the Foo"
	// basics: 4 chapters, from "initial list and sync" to "someone deletes the Deployment"
}

// CheckResource accepts what --resource takes: a resource of the core
// group, or RESOURCE.VERSION.GROUP.
func ExampleCheckResource() {
	for _, s := range []string{"configmaps", "foos.v1alpha1.samplecontroller.k8s.io", "foos.v1alpha1"} {
		fmt.Println(s, demoengine.CheckResource(s) == nil)
	}
	// Output:
	// configmaps true
	// foos.v1alpha1.samplecontroller.k8s.io true
	// foos.v1alpha1 false
}
