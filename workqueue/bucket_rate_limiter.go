package workqueue

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// NewBucketRateLimiter returns a limiter shared by all items: a token bucket that
// holds up to burst tokens and earns qps tokens per second. Every When takes one
// token; while tokens are left its delay is zero, after that callers queue up one
// token interval (1/qps) apart. NumRequeues is always 0 and Forget does nothing.
//
// qps must be positive and finite and burst at least 1; otherwise it returns an
// error (upstream would accept them and hand out infinite delays). The interval
// 1/qps is rounded down to a whole nanosecond, so qps above 1e9 means no limit.
//
// client-go: util/workqueue.TypedBucketRateLimiter (which wraps
// golang.org/x/time/rate.Limiter; this package has its own bucket).
func NewBucketRateLimiter[T comparable](qps float64, burst int) (RateLimiter[T], error) {
	if math.IsNaN(qps) || math.IsInf(qps, 0) || qps <= 0 {
		return nil, fmt.Errorf("workqueue: bucket rate limiter needs a positive, finite qps, got %v", qps)
	}
	if burst < 1 {
		return nil, fmt.Errorf("workqueue: bucket rate limiter needs a burst of at least 1, got %d", burst)
	}
	if float64(time.Second)/qps*float64(burst) >= math.MaxInt64 {
		return nil, fmt.Errorf("workqueue: bucket rate limiter with qps %v and burst %d would take longer than %v to fill", qps, burst, time.Duration(math.MaxInt64))
	}
	return newBucketRateLimiter[T](qps, burst), nil
}

// newBucketRateLimiter takes arguments already checked by NewBucketRateLimiter.
func newBucketRateLimiter[T comparable](qps float64, burst int) *bucketRateLimiter[T] {
	interval := time.Duration(float64(time.Second) / qps)
	return &bucketRateLimiter[T]{interval: interval, capacity: time.Duration(burst) * interval}
}

// bucketRateLimiter keeps its bucket as a single instant instead of a token count,
// which makes the arithmetic exact: fullAt is when the bucket will be full again,
// counting every token already handed out. At time now the bucket holds
//
//	burst - (fullAt - now) / interval    tokens, if fullAt is after now
//	burst                                tokens, otherwise.
//
// Taking a token moves fullAt one interval later. The token exists (the count above
// is at least zero) once fullAt - now <= capacity, that is, at fullAt - capacity.
type bucketRateLimiter[T comparable] struct {
	interval time.Duration // time to earn one token
	capacity time.Duration // burst * interval: time to fill an empty bucket

	mu     sync.Mutex // guards fullAt
	fullAt time.Time
}

func (r *bucketRateLimiter[T]) When(T) time.Duration {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fullAt.Before(now) {
		r.fullAt = now // a full bucket does not fill any further
	}
	r.fullAt = r.fullAt.Add(r.interval)
	return max(0, r.fullAt.Sub(now)-r.capacity)
}

func (r *bucketRateLimiter[T]) Forget(T) {}

func (r *bucketRateLimiter[T]) NumRequeues(T) int { return 0 }
