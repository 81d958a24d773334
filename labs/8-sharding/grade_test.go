package shardinglab

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/shardingsuite"
)

// TestGrade grades the guard: run `go test` in this directory.
func TestGrade(t *testing.T) {
	grade.Lab(t, "8-sharding", shardingsuite.Behaviours(impl))
}
