package workqueue_test

import (
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/ratelimitersuite"
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
)

// TestSuite runs the behaviours labs/2-workqueue grades learners on.
func TestSuite(t *testing.T) {
	grade.Reference(t, workqueuesuite.Behaviours(workqueuesuite.Reference))
}

// TestRateLimiterSuite runs the behaviours labs/3-ratelimiters grades
// learners on.
func TestRateLimiterSuite(t *testing.T) {
	grade.Reference(t, ratelimitersuite.Behaviours(ratelimitersuite.Reference))
}
