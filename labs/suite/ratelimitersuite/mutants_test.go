package ratelimitersuite_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/ratelimitersuite"
)

// shiftingLimiter doubles by shifting, with no cap on the shift: past 63
// failures the delay wraps around.
type shiftingLimiter struct {
	mu       sync.Mutex
	base     time.Duration
	max      time.Duration
	failures map[string]int
}

func (l *shiftingLimiter) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.failures[item]
	l.failures[item] = n + 1
	return min(l.base<<n, l.max)
}

func (l *shiftingLimiter) Forget(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.failures, item)
}

func (l *shiftingLimiter) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failures[item]
}

// freeBucket never makes anyone wait.
type freeBucket struct{}

func (freeBucket) When(string) time.Duration { return 0 }
func (freeBucket) Forget(string)             {}
func (freeBucket) NumRequeues(string) int    { return 0 }

func mutant(change func(*ratelimitersuite.Impl)) ratelimitersuite.Impl {
	impl := ratelimitersuite.Reference
	change(&impl)
	return impl
}

var mutants = map[string]ratelimitersuite.Impl{
	"shift-overflow": mutant(func(i *ratelimitersuite.Impl) {
		i.Exponential = func(base, max time.Duration) ratelimitersuite.Limiter {
			return &shiftingLimiter{base: base, max: max, failures: map[string]int{}}
		}
	}),
	"free-bucket": mutant(func(i *ratelimitersuite.Impl) {
		i.Bucket = func(float64, int) (ratelimitersuite.Limiter, error) { return freeBucket{}, nil }
	}),
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, ratelimitersuite.Behaviours(mutants[name]))
	}
}

func TestSuiteCatchesBrokenLimiters(t *testing.T) {
	assert.Equal(t, []string{"ExponentialCapsWithoutOverflow"},
		grade.FailedInChild(t, "TestHelperMutant", "shift-overflow"))
	assert.Equal(t, []string{"BucketSpendsBurstThenSpacesCallers", "BucketRefillsOverTime", "BucketRejectsBadParameters"},
		grade.FailedInChild(t, "TestHelperMutant", "free-bucket"))
}
