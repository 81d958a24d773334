package workqueue_test

import (
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

const ms = time.Millisecond

// whenSequence calls r.When(item) n times and returns the delays.
func whenSequence[T comparable](r workqueue.RateLimiter[T], item T, n int) []time.Duration {
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = r.When(item)
	}
	return delays
}

// TestItemExponentialFailureRateLimiterDoublesUpToTheCap: base, 2*base, 4*base, ...
// until the cap; each item has its own count; Forget starts it over.
// Diagram: step 7. client-go: TypedItemExponentialFailureRateLimiter.When.
func TestItemExponentialFailureRateLimiterDoublesUpToTheCap(t *testing.T) {
	r := workqueue.NewItemExponentialFailureRateLimiter[string](5*ms, time.Second)

	got := whenSequence(r, "ns/a", 10)

	assert.Equal(t, []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second}, got)
	assert.Equal(t, 10, r.NumRequeues("ns/a"))
	assert.Equal(t, 5*ms, r.When("ns/b"), "another item starts from base")
	r.Forget("ns/a")
	assert.Equal(t, 0, r.NumRequeues("ns/a"))
	assert.Equal(t, 5*ms, r.When("ns/a"))
	assert.Equal(t, 1, r.NumRequeues("ns/b"))
}

// TestItemExponentialFailureRateLimiterNeverOverflows: however many failures, the
// delay never wraps negative or decreases; it settles on the cap.
// Diagram: step 7. client-go: TypedItemExponentialFailureRateLimiter (float overflow guard).
func TestItemExponentialFailureRateLimiterNeverOverflows(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base, max time.Duration
	}{
		{"1ns up to the largest duration", 1, math.MaxInt64},
		{"1h up to the largest duration", time.Hour, math.MaxInt64},
		{"cap below base", time.Second, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := workqueue.NewItemExponentialFailureRateLimiter[string](tc.base, tc.max)

			got := whenSequence(r, "ns/a", 200)

			for i := 1; i < len(got); i++ {
				require.GreaterOrEqual(t, got[i], got[i-1], "failure %d", i+1)
			}
			assert.Equal(t, tc.max, got[len(got)-1])
			assert.LessOrEqual(t, got[0], tc.max)
		})
	}
}

// TestItemExponentialFailureRateLimiterTreatsNegativeDurationsAsZero.
// Diagram: step 7. client-go: TypedItemExponentialFailureRateLimiter.
func TestItemExponentialFailureRateLimiterTreatsNegativeDurationsAsZero(t *testing.T) {
	r := workqueue.NewItemExponentialFailureRateLimiter[string](-time.Second, -time.Second)

	assert.Equal(t, []time.Duration{0, 0, 0}, whenSequence(r, "ns/a", 3))
}

// TestDefaultControllerRateLimiterReachesTheCapOnThe19thFailure: 5ms doubling,
// 655.36s on the 18th failure, 1000s from the 19th on; the bucket's burst of 100
// adds nothing to the first 100 delays.
// Diagram: step 7. client-go: DefaultTypedControllerRateLimiter.
func TestDefaultControllerRateLimiterReachesTheCapOnThe19thFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := workqueue.DefaultControllerRateLimiter[string]()

		got := whenSequence(r, "ns/a", 20)
		for i, d := range got {
			t.Logf("failure %2d: retry after %v", i+1, d)
		}

		assert.Equal(t, 5*ms, got[0])
		assert.Equal(t, 655360*ms, got[17])
		assert.Equal(t, 1000*time.Second, got[18])
		assert.Equal(t, 1000*time.Second, got[19])
		assert.Equal(t, 20, r.NumRequeues("ns/a"))
	})
}

// TestDefaultControllerRateLimiterIsLimitedByTheBucketOverall: 100 different items
// fail once each and are retried after 5ms; the 101st waits for the bucket, which
// earns one token every 100ms.
// Diagram: step 7. client-go: DefaultTypedControllerRateLimiter (10 qps, burst 100).
func TestDefaultControllerRateLimiterIsLimitedByTheBucketOverall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := workqueue.DefaultControllerRateLimiter[int]()

		for item := range 100 {
			require.Equal(t, 5*ms, r.When(item))
		}

		t.Log("100 different keys fail once each: each is retried after 5ms (the bucket's burst of 100)")
		assert.Equal(t, 100*ms, r.When(100))
		assert.Equal(t, 200*ms, r.When(101))
		t.Log("   the 101st key waits 100ms and the 102nd 200ms: the bucket earns one token every 100ms")
	})
}

// TestBucketRateLimiterSpendsTheBurstThenQueuesCallersOneIntervalApart: with qps 10
// and burst 3, three calls go at once, then each waits 100ms longer than the one
// before; items share the bucket.
// Diagram: step 7. client-go: TypedBucketRateLimiter (rate.Limiter.Reserve().Delay()).
func TestBucketRateLimiterSpendsTheBurstThenQueuesCallersOneIntervalApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, err := workqueue.NewBucketRateLimiter[string](10, 3)
		require.NoError(t, err)

		got := []time.Duration{r.When("ns/a"), r.When("ns/b"), r.When("ns/c"), r.When("ns/a"), r.When("ns/d")}
		t.Logf("qps 10, burst 3: When(a), When(b), When(c), When(a), When(d) = %v", got)

		assert.Equal(t, []time.Duration{0, 0, 0, 100 * ms, 200 * ms}, got)
		assert.Equal(t, 0, r.NumRequeues("ns/a"))
	})
}

// TestBucketRateLimiterRefillsAtQPSUpToTheBurst: tokens come back one per interval,
// and a bucket left alone fills to its burst and no further.
// Diagram: step 7. client-go: TypedBucketRateLimiter.
func TestBucketRateLimiterRefillsAtQPSUpToTheBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, err := workqueue.NewBucketRateLimiter[string](10, 3)
		require.NoError(t, err)
		whenSequence(r, "ns/a", 4) // burst spent, one token owed

		time.Sleep(250 * ms) // 2.5 tokens earned, 1 owed: 1.5 left
		got := whenSequence(r, "ns/a", 2)
		t.Logf("qps 10, burst 3: burst spent and one token owed; 250ms later two calls wait %v", got)
		assert.Equal(t, []time.Duration{0, 50 * ms}, got)

		time.Sleep(time.Hour) // far more than the burst earned: capped at 3
		got = whenSequence(r, "ns/a", 4)
		t.Logf("   an hour later four calls wait %v: the bucket refilled to its burst of 3 and no further", got)
		assert.Equal(t, []time.Duration{0, 0, 0, 100 * ms}, got)
	})
}

// TestNewBucketRateLimiterRejectsBadSettings: settings that would mean an infinite
// delay or an overflow are an error, not a limiter that hangs a controller.
// Diagram: step 7. client-go: TypedBucketRateLimiter accepts them.
func TestNewBucketRateLimiterRejectsBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		qps   float64
		burst int
	}{
		{"zero qps", 0, 10},
		{"negative qps", -1, 10},
		{"NaN qps", math.NaN(), 10},
		{"infinite qps", math.Inf(1), 10},
		{"zero burst", 10, 0},
		{"negative burst", 10, -1},
		{"fill time overflows", 1e-9, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := workqueue.NewBucketRateLimiter[string](tc.qps, tc.burst)

			require.Error(t, err)
			assert.Nil(t, r)
			assert.Contains(t, err.Error(), "workqueue: bucket rate limiter")
		})
	}
}

// TestItemFastSlowRateLimiterSwitchesAfterTheFastAttempts.
// Diagram: step 7. client-go: TypedItemFastSlowRateLimiter.
func TestItemFastSlowRateLimiterSwitchesAfterTheFastAttempts(t *testing.T) {
	r := workqueue.NewItemFastSlowRateLimiter[string](5*ms, 10*time.Second, 3)

	assert.Equal(t, []time.Duration{5 * ms, 5 * ms, 5 * ms, 10 * time.Second, 10 * time.Second}, whenSequence(r, "ns/a", 5))
	assert.Equal(t, 5, r.NumRequeues("ns/a"))
	r.Forget("ns/a")
	assert.Equal(t, 5*ms, r.When("ns/a"))
}

// TestMaxOfRateLimiterAsksEveryLimiterAndReturnsTheLongest: every limiter counts
// the attempt; the longest delay and the largest count win; Forget reaches all.
// Diagram: step 7. client-go: TypedMaxOfRateLimiter.
func TestMaxOfRateLimiterAsksEveryLimiterAndReturnsTheLongest(t *testing.T) {
	exp := workqueue.NewItemExponentialFailureRateLimiter[string](ms, time.Hour)
	fastSlow := workqueue.NewItemFastSlowRateLimiter[string](3*ms, time.Second, 2)
	r := workqueue.NewMaxOfRateLimiter(exp, nil, fastSlow)

	got := whenSequence(r, "ns/a", 4)

	assert.Equal(t, []time.Duration{3 * ms, 3 * ms, time.Second, time.Second}, got)
	assert.Equal(t, 4, exp.NumRequeues("ns/a"), "every limiter counts every attempt")
	assert.Equal(t, 4, r.NumRequeues("ns/a"))
	r.Forget("ns/a")
	assert.Equal(t, 0, exp.NumRequeues("ns/a"))
	assert.Equal(t, 0, fastSlow.NumRequeues("ns/a"))
	assert.Equal(t, time.Duration(0), workqueue.NewMaxOfRateLimiter[string]().When("ns/a"))
}

// TestWithMaxWaitRateLimiterCapsTheDelay.
// Diagram: step 7. client-go: TypedWithMaxWaitRateLimiter.
func TestWithMaxWaitRateLimiterCapsTheDelay(t *testing.T) {
	r := workqueue.NewWithMaxWaitRateLimiter(workqueue.NewItemExponentialFailureRateLimiter[string](10*ms, time.Hour), 25*ms)

	assert.Equal(t, []time.Duration{10 * ms, 20 * ms, 25 * ms, 25 * ms}, whenSequence(r, "ns/a", 4))
	assert.Equal(t, 4, r.NumRequeues("ns/a"))
	r.Forget("ns/a")
	assert.Equal(t, 10*ms, r.When("ns/a"))
}

// TestRateLimitersAreSafeForConcurrentUse: run under -race; counts stay exact.
// Diagram: step 7. client-go: default_rate_limiters.go.
func TestRateLimitersAreSafeForConcurrentUse(t *testing.T) {
	bucket, err := workqueue.NewBucketRateLimiter[int](1e6, 10)
	require.NoError(t, err)
	limiters := map[string]workqueue.RateLimiter[int]{
		"exponential": workqueue.NewItemExponentialFailureRateLimiter[int](ms, time.Second),
		"fast-slow":   workqueue.NewItemFastSlowRateLimiter[int](ms, time.Second, 3),
		"max-of":      workqueue.NewMaxOfRateLimiter(workqueue.NewItemExponentialFailureRateLimiter[int](ms, time.Second), bucket),
		"max-wait":    workqueue.NewWithMaxWaitRateLimiter[int](nil, time.Second),
		"default":     workqueue.DefaultControllerRateLimiter[int](),
	}
	for name, r := range limiters {
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for range 100 {
						r.When(g)
						r.NumRequeues(g)
					}
				})
			}
			wg.Wait()

			for g := range 8 {
				assert.Equal(t, 100, r.NumRequeues(g))
				r.Forget(g)
				assert.Equal(t, 0, r.NumRequeues(g))
			}
		})
	}
}
