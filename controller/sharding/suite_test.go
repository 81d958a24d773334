package sharding_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/shardingsuite"
)

// TestShardingSuite runs the behaviours labs/8-sharding grades learners on
// against BucketGuard, the guard Member runs.
// Diagram: step 8 (the guard before the reconcile). client-go: none.
func TestShardingSuite(t *testing.T) {
	behaviours := shardingsuite.Behaviours(shardingsuite.Reference)
	grade.Reference(t, behaviours)
	for _, b := range behaviours {
		t.Logf("%s: %s", b.Name, b.Want)
	}
}
