package kubejson_test

import (
	"encoding/json"
	"fmt"

	"github.com/informerlab/informerlab/internal/kubejson"
)

// A spec that names replicas twice, in two cases: the API server stores 1000,
// encoding/json reads 1, kubejson reads 1000.
func Example() {
	type spec struct {
		Replicas int `json:"replicas"`
	}
	body := []byte(`{"replicas":1000,"Replicas":1}`)

	var std, kube spec
	if err := json.Unmarshal(body, &std); err != nil {
		panic(err)
	}
	if err := kubejson.Unmarshal(body, &kube); err != nil {
		panic(err)
	}

	fmt.Println("encoding/json:", std.Replicas)
	fmt.Println("kubejson:     ", kube.Replicas)
	// Output:
	// encoding/json: 1
	// kubejson:      1000
}
