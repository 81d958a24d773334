package ratelimitersuite

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
	"github.com/informerlab/informerlab/workqueue"
)

// Limiter is the rate limiter interface every constructor returns.
type Limiter = workqueue.RateLimiter[string]

// Impl is how an implementation plugs in: one constructor per limiter,
// and the rate-limiting queue.
type Impl struct {
	// Exponential returns a per-item limiter whose delay is
	// base·2^(failures-1), capped at maxDelay.
	Exponential func(base, maxDelay time.Duration) Limiter
	// FastSlow returns a per-item limiter: fast for an item's first
	// maxFast attempts, slow after that.
	FastSlow func(fast, slow time.Duration, maxFast int) Limiter
	// MaxOf combines limiters: the longest delay of all of them.
	MaxOf func(limiters ...Limiter) Limiter
	// Bucket returns a token bucket shared by all items: burst tokens,
	// refilled at qps per second. Bad parameters are an error.
	Bucket func(qps float64, burst int) (Limiter, error)
	// Queue returns a rate-limiting queue that asks limiter how long a
	// failed item waits.
	Queue func(limiter Limiter) workqueue.RateLimitingInterface[string]
}

const (
	docLimiters = "docs/workqueue.md#the-rate-limiters"
	docGetDone  = "docs/workqueue.md#get-done-forget-addratelimited-what-each-one-does"
)

// Reference is informerlab's own implementation: what
// workqueue/suite_test.go grades, and what labs/3-ratelimiters wires in
// under the labs_reference build tag.
var Reference = Impl{
	Exponential: func(base, maxDelay time.Duration) Limiter {
		return workqueue.NewItemExponentialFailureRateLimiter[string](base, maxDelay)
	},
	FastSlow: func(fast, slow time.Duration, maxFast int) Limiter {
		return workqueue.NewItemFastSlowRateLimiter[string](fast, slow, maxFast)
	},
	MaxOf:  workqueue.NewMaxOfRateLimiter[string],
	Bucket: workqueue.NewBucketRateLimiter[string],
	Queue: func(l Limiter) workqueue.RateLimitingInterface[string] {
		return workqueue.NewRateLimiting(l)
	},
}

// Behaviours returns the graded behaviours of the rate limiters and the
// rate-limiting queue. Each behaviour uses one constructor of impl (the
// others it needs come from informerlab), so each can pass on its own.
func Behaviours(impl Impl) []grade.Behaviour {
	return append([]grade.Behaviour{
		{
			Name: "ExponentialDoublesPerFailure",
			Want: "the exponential limiter's delays for one item are base, 2·base, 4·base, ..., and NumRequeues counts them",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				l := impl.Exponential(5*time.Millisecond, time.Hour)
				for i, want := range []time.Duration{5, 10, 20, 40, 80} {
					assert.Equal(t, want*time.Millisecond, l.When("a"), "failure %d", i+1)
				}
				assert.Equal(t, 5, l.NumRequeues("a"))
			},
		},
		{
			Name: "ExponentialIsPerItem",
			Want: "each item has its own failure count: another item's failures do not lengthen its delay",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				l := impl.Exponential(time.Millisecond, time.Hour)
				l.When("a")
				l.When("a")
				assert.Equal(t, time.Millisecond, l.When("b"))
				assert.Equal(t, 4*time.Millisecond, l.When("a"))
				assert.Equal(t, 1, l.NumRequeues("b"))
				assert.Equal(t, 0, l.NumRequeues("c"))
			},
		},
		{
			Name: "ExponentialCapsWithoutOverflow",
			Want: "the delay stops at maxDelay and stays there, even after hundreds of failures (no overflow to a negative or zero delay)",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				l := impl.Exponential(time.Millisecond, time.Second)
				var last time.Duration
				for i := range 300 {
					last = l.When("a")
					require.LessOrEqual(t, last, time.Second, "failure %d", i+1)
					require.Positive(t, last, "failure %d", i+1)
				}
				assert.Equal(t, time.Second, last)
				huge := impl.Exponential(time.Duration(math.MaxInt64/4), time.Duration(math.MaxInt64))
				for i := range 10 {
					require.Positive(t, huge.When("a"), "failure %d with a huge base", i+1)
				}
			},
		},
		{
			Name: "ForgetRestartsTheBackoff",
			Want: "after Forget(item), its next delay is base again and NumRequeues is 0",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				l := impl.Exponential(5*time.Millisecond, time.Hour)
				for range 4 {
					l.When("a")
				}
				l.When("b")
				l.Forget("a")
				assert.Equal(t, 0, l.NumRequeues("a"))
				assert.Equal(t, 5*time.Millisecond, l.When("a"))
				assert.Equal(t, 1, l.NumRequeues("b"), "forgetting a leaves b alone")
			},
		},
		{
			Name: "FastSlowSwitchesAfterFastAttempts",
			Want: "the fast-slow limiter waits fast for an item's first maxFast attempts, slow after, and Forget starts it over",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				l := impl.FastSlow(time.Millisecond, time.Second, 3)
				var got []time.Duration
				for range 5 {
					got = append(got, l.When("a"))
				}
				ms, s := time.Millisecond, time.Second
				assert.Equal(t, []time.Duration{ms, ms, ms, s, s}, got)
				assert.Equal(t, ms, l.When("b"), "per item")
				assert.Equal(t, 5, l.NumRequeues("a"))
				l.Forget("a")
				assert.Equal(t, ms, l.When("a"))
			},
		},
		{
			Name: "MaxOfTakesTheLongestDelay",
			Want: "MaxOf asks every limiter (each counts the attempt) and returns the longest delay; NumRequeues is the largest; Forget forgets in all",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				exp := workqueue.NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Hour)
				fs := workqueue.NewItemFastSlowRateLimiter[string](4*time.Millisecond, time.Minute, 2)
				l := impl.MaxOf(exp, fs)
				var got []time.Duration
				for range 4 {
					got = append(got, l.When("a"))
				}
				ms := time.Millisecond
				assert.Equal(t, []time.Duration{4 * ms, 4 * ms, time.Minute, time.Minute}, got)
				assert.Equal(t, 4, exp.NumRequeues("a"), "every limiter counted every attempt")
				assert.Equal(t, 4, l.NumRequeues("a"))
				l.Forget("a")
				assert.Equal(t, 0, exp.NumRequeues("a"))
				assert.Equal(t, 0, fs.NumRequeues("a"))
			},
		},
		{
			Name: "BucketSpendsBurstThenSpacesCallers",
			Want: "the bucket gives burst zero delays, then each further caller waits one more 1/qps interval; it is shared by all items",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					l, err := impl.Bucket(10, 2)
					require.NoError(t, err)
					ms := time.Millisecond
					got := []time.Duration{l.When("a"), l.When("b"), l.When("c"), l.When("a"), l.When("d")}
					assert.Equal(t, []time.Duration{0, 0, 100 * ms, 200 * ms, 300 * ms}, got)
					assert.Equal(t, 0, l.NumRequeues("a"), "the bucket counts no per-item failures")
				})
			},
		},
		{
			Name: "BucketRefillsOverTime",
			Want: "tokens come back at qps per second, up to burst: after waiting, zero delays again",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					l, err := impl.Bucket(10, 3)
					require.NoError(t, err)
					for range 3 {
						require.Zero(t, l.When("a"))
					}
					time.Sleep(100 * time.Millisecond)
					assert.Zero(t, l.When("a"), "one token after 100ms")
					assert.Equal(t, 100*time.Millisecond, l.When("a"), "and only one")
					time.Sleep(10 * time.Second)
					for i := range 3 {
						assert.Zero(t, l.When("a"), "token %d of a full bucket", i+1)
					}
					assert.Positive(t, l.When("a"), "the bucket holds at most burst tokens")
				})
			},
		},
		{
			Name: "BucketRejectsBadParameters",
			Want: "a bucket with qps <= 0, NaN or infinite, or burst < 1, is an error, not a limiter that hands out endless delays",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				for _, c := range []struct {
					qps   float64
					burst int
				}{{0, 1}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {1, 0}, {1, -5}} {
					_, err := impl.Bucket(c.qps, c.burst)
					assert.Error(t, err, "qps %v burst %d", c.qps, c.burst)
				}
				_, err := impl.Bucket(0.5, 1)
				assert.NoError(t, err, "qps below 1 is fine")
			},
		},
		{
			Name: "LimitersAreSafeForConcurrentUse",
			Want: "the exponential, fast-slow and bucket limiters, called from many goroutines at once, neither race (go test -race) nor lose a count",
			Doc:  docLimiters,
			Test: func(t *testing.T) {
				// Real goroutines outside a bubble, so that -race sees
				// every unguarded access.
				exp := impl.Exponential(time.Millisecond, time.Second)
				fs := impl.FastSlow(time.Millisecond, time.Second, 3)
				bucket, err := impl.Bucket(1000, 10)
				require.NoError(t, err)
				const goroutines, calls = 4, 100
				var dones []<-chan struct{}
				for g := range goroutines {
					dones = append(dones, grade.Go(t, func() {
						item := fmt.Sprintf("item-%d", g%2)
						for range calls {
							exp.When(item)
							exp.NumRequeues(item)
							fs.When(item)
							bucket.When(item)
							exp.Forget("other")
						}
					}))
				}
				for _, d := range dones {
					<-d
				}
				for _, item := range []string{"item-0", "item-1"} {
					assert.Equal(t, goroutines/2*calls, exp.NumRequeues(item), "exponential, %s", item)
					assert.Equal(t, goroutines/2*calls, fs.NumRequeues(item), "fast-slow, %s", item)
				}
			},
		},
		{
			Name: "AddRateLimitedWaitsTheLimiterDelay",
			Want: "AddRateLimited(item) adds item after the delay the limiter gives, counting one more failure",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					q := impl.Queue(workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Hour))
					defer q.ShutDown()
					q.AddRateLimited("a")
					assert.Equal(t, 1, q.NumRequeues("a"))
					assert.Equal(t, 0, workqueuesuite.LenAfter(q, time.Second-time.Millisecond), "before the first delay of 1s")
					require.Equal(t, 1, workqueuesuite.LenAfter(q, time.Millisecond), "after 1s")
					item, _ := q.Get()
					q.Done(item)
					q.AddRateLimited("a")
					assert.Equal(t, 0, workqueuesuite.LenAfter(q, 2*time.Second-time.Millisecond), "before the second delay of 2s")
					assert.Equal(t, 1, workqueuesuite.LenAfter(q, time.Millisecond), "after 2s")
					assert.Equal(t, 2, q.NumRequeues("a"))
				})
			},
		},
		{
			Name: "QueueForgetResetsTheItem",
			Want: "the queue's Forget clears the item's failures in the limiter, so the next AddRateLimited waits the shortest delay",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					q := impl.Queue(workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Hour))
					defer q.ShutDown()
					for range 5 {
						q.AddRateLimited("a")
					}
					q.Forget("a")
					assert.Equal(t, 0, q.NumRequeues("a"))
					require.Equal(t, 1, workqueuesuite.LenAfter(q, time.Second), "the first AddRateLimited's 1s delay came due")
					item, _ := q.Get()
					q.Done(item)
					q.AddRateLimited("a")
					assert.Equal(t, 1, workqueuesuite.LenAfter(q, time.Second), "after Forget the delay is 1s again")
				})
			},
		},
		{
			Name: "QueueIsAlsoADelayingQueue",
			Want: "the rate-limiting queue still does Add, Get, Done, AddAfter and ShutDown as the plain queue does",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					q := impl.Queue(workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Hour))
					q.Add("a")
					q.Add("a")
					q.AddAfter("b", time.Minute)
					assert.Equal(t, 1, q.Len())
					item, _ := q.Get()
					assert.Equal(t, "a", item)
					q.Done(item)
					assert.Equal(t, 1, workqueuesuite.LenAfter(q, time.Minute))
					q.ShutDown()
					item, shutdown := q.Get()
					assert.Equal(t, "b", item)
					assert.False(t, shutdown)
					_, shutdown = q.Get()
					assert.True(t, shutdown)
				})
			},
		},
	}, modelBehaviours(impl)...)
}
