package predicate_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/predicate"
)

// A controller that writes its Foo's status must not wake up for its own
// write: GenerationChangedPredicate passes an update only when the spec
// changed (the API server bumps metadata.generation for spec changes only).
// Or with LabelChangedPredicate lets label edits through as well.
func Example() {
	foo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
		"metadata": map[string]any{"name": "web", "namespace": "demo", "generation": int64(1)},
	}}
	statusWritten := foo.DeepCopy()
	statusWritten.Object["status"] = map[string]any{"availableReplicas": int64(1)}
	specChanged := foo.DeepCopy()
	specChanged.SetGeneration(2)
	labelled := foo.DeepCopy()
	labelled.SetLabels(map[string]string{"tier": "front"})

	spec := predicate.GenerationChangedPredicate{}
	specOrLabels := predicate.Or(spec, predicate.LabelChangedPredicate{})
	for _, u := range []struct {
		what string
		new  *unstructured.Unstructured
	}{{"status written", statusWritten}, {"spec changed", specChanged}, {"label added", labelled}} {
		e := controller.UpdateEvent{ObjectOld: foo, ObjectNew: u.new}
		fmt.Printf("%-15s generation changed: %-5v  generation or labels changed: %v\n", u.what, spec.Update(e), specOrLabels.Update(e))
	}
	// Output:
	// status written  generation changed: false  generation or labels changed: false
	// spec changed    generation changed: true   generation or labels changed: true
	// label added     generation changed: false  generation or labels changed: true
}
