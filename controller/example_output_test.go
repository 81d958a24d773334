package controller_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

// TestOutputOfExampleController shows what ExampleController prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleController(t *testing.T) {
	exampleoutput.Show(t, "ExampleController", ExampleController)
}

// TestOutputOfExampleBuilder shows what ExampleBuilder prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleBuilder(t *testing.T) {
	exampleoutput.Show(t, "ExampleBuilder", ExampleBuilder)
}

// TestOutputOfExampleManager_GetClient shows what ExampleManager_GetClient prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleManager_GetClient(t *testing.T) {
	exampleoutput.Show(t, "ExampleManager_GetClient", ExampleManager_GetClient)
}

// TestOutputOfExampleShardSelectorFor shows what ExampleShardSelectorFor prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleShardSelectorFor(t *testing.T) {
	exampleoutput.Show(t, "ExampleShardSelectorFor", ExampleShardSelectorFor)
}

// TestOutputOfExampleBucketOwners shows what ExampleBucketOwners prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleBucketOwners(t *testing.T) {
	exampleoutput.Show(t, "ExampleBucketOwners", ExampleBucketOwners)
}

// TestOutputOfExample_shardedManager shows what Example_shardedManager prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExample_shardedManager(t *testing.T) {
	exampleoutput.Show(t, "Example_shardedManager", Example_shardedManager)
}
