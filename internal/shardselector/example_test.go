package shardselector_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/internal/shardselector"
)

// Parse a selector for the lower half of the uid hash range, as a sharded
// informer sends it, and ask which objects it selects; a malformed one is
// refused in kube-apiserver's words.
func Example() {
	sel, err := shardselector.Parse("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')")
	if err != nil {
		panic(err)
	}
	for _, uid := range []string{
		"4b2e2a0c-1f3d-4c5e-9a7b-0d1e2f3a4b5c",
		"9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f",
		"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
		"d3c2b1a0-9f8e-4d7c-8b6a-5f4e3d2c1b0a",
	} {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid)}}
		in, _ := sel.Matches(obj)
		fmt.Printf("%s in the lower half: %v\n", uid[:8], in)
	}
	_, err = shardselector.Parse("shardRange(object.metadata.name, '0x0', '0x1')")
	fmt.Println(err != nil)
	// Output:
	// 4b2e2a0c in the lower half: true
	// 9c8d7e6f in the lower half: true
	// 0f1e2d3c in the lower half: false
	// d3c2b1a0 in the lower half: false
	// true
}
