package sharding_test

import (
	"testing"

	"github.com/informerlab/informerlab/internal/exampleoutput"
)

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

// TestOutputOfExampleRunnerUpBuckets shows what ExampleRunnerUpBuckets prints: go test -v shows
// an Example's output only when it is wrong.
// Diagram: see the Example. client-go: none.
func TestOutputOfExampleRunnerUpBuckets(t *testing.T) {
	exampleoutput.Show(t, "ExampleRunnerUpBuckets", ExampleRunnerUpBuckets)
}
