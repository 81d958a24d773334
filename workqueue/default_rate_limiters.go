package workqueue

import (
	"sync"
	"time"
)

// RateLimiter decides how long an item waits before its next attempt. Every
// limiter in this package is safe for concurrent use.
//
// client-go: util/workqueue.TypedRateLimiter.
type RateLimiter[T comparable] interface {
	// When returns how long item should wait before its next attempt, and counts
	// this attempt (for per-item limiters) or spends a token (for the bucket).
	When(item T) time.Duration
	// Forget clears item's failure history, so its next When starts from scratch.
	// Call it when item was processed successfully; per-item limiters otherwise
	// remember it forever.
	Forget(item T)
	// NumRequeues returns how many attempts item has had since it was last
	// forgotten.
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter is what controllers use unless told otherwise: the
// longer of a per-item exponential backoff (5ms, doubling, capped at 1000s) and an
// overall token bucket of 10 qps with a burst of 100. The exponential limiter
// reaches its cap on the 19th consecutive failure (5ms * 2^18 > 1000s).
//
// client-go: util/workqueue.DefaultTypedControllerRateLimiter.
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		newBucketRateLimiter[T](10, 100),
	)
}

// NewItemExponentialFailureRateLimiter returns a per-item limiter whose delay
// doubles with every failure: base, 2*base, 4*base, ... capped at maxDelay. The
// computation is exact integer arithmetic and cannot overflow: any delay beyond
// maxDelay is maxDelay. A base or maxDelay below zero counts as zero (no delay).
//
// client-go: util/workqueue.NewTypedItemExponentialFailureRateLimiter.
func NewItemExponentialFailureRateLimiter[T comparable](base, maxDelay time.Duration) RateLimiter[T] {
	return &itemExponentialFailureRateLimiter[T]{
		base:     max(base, 0),
		maxDelay: max(maxDelay, 0),
		failures: make(map[T]int),
	}
}

type itemExponentialFailureRateLimiter[T comparable] struct {
	base, maxDelay time.Duration

	mu       sync.Mutex // guards failures
	failures map[T]int  // attempts since the last Forget; items at zero are absent
}

func (r *itemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp := r.failures[item]
	r.failures[item] = exp + 1
	return exponentialBackoff(r.base, r.maxDelay, exp)
}

// exponentialBackoff returns min(base * 2^exp, maxDelay) for base, maxDelay >= 0.
func exponentialBackoff(base, maxDelay time.Duration, exp int) time.Duration {
	// base<<exp > maxDelay exactly when base > maxDelay>>exp, and the right-hand
	// side cannot overflow; so only shift when the result is known to fit.
	if exp >= 63 || base > maxDelay>>exp {
		return maxDelay
	}
	return base << exp
}

func (r *itemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

func (r *itemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// NewItemFastSlowRateLimiter returns a per-item limiter that waits fastDelay for
// each of an item's first maxFastAttempts attempts and slowDelay after that.
//
// client-go: util/workqueue.NewTypedItemFastSlowRateLimiter.
func NewItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) RateLimiter[T] {
	return &itemFastSlowRateLimiter[T]{
		fastDelay:       fastDelay,
		slowDelay:       slowDelay,
		maxFastAttempts: maxFastAttempts,
		attempts:        make(map[T]int),
	}
}

type itemFastSlowRateLimiter[T comparable] struct {
	fastDelay, slowDelay time.Duration
	maxFastAttempts      int

	mu       sync.Mutex // guards attempts
	attempts map[T]int  // attempts since the last Forget; items at zero are absent
}

func (r *itemFastSlowRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts[item]++
	if r.attempts[item] <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

func (r *itemFastSlowRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.attempts, item)
}

func (r *itemFastSlowRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts[item]
}

// NewMaxOfRateLimiter combines limiters: When asks every one of them (so each counts
// the attempt or spends a token) and returns the longest delay; NumRequeues is the
// largest count; Forget forgets in all of them. Nil limiters are skipped; with none
// left, every delay is zero.
//
// client-go: util/workqueue.NewTypedMaxOfRateLimiter.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	r := &maxOfRateLimiter[T]{}
	for _, l := range limiters {
		if l != nil {
			r.limiters = append(r.limiters, l)
		}
	}
	return r
}

type maxOfRateLimiter[T comparable] struct {
	limiters []RateLimiter[T] // fixed at construction
}

func (r *maxOfRateLimiter[T]) When(item T) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, l.When(item))
	}
	return longest
}

func (r *maxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

func (r *maxOfRateLimiter[T]) NumRequeues(item T) int {
	var most int
	for _, l := range r.limiters {
		most = max(most, l.NumRequeues(item))
	}
	return most
}

// NewWithMaxWaitRateLimiter caps the delays of limiter at maxDelay. A nil limiter
// means [DefaultControllerRateLimiter].
//
// client-go: util/workqueue.NewTypedWithMaxWaitRateLimiter.
func NewWithMaxWaitRateLimiter[T comparable](limiter RateLimiter[T], maxDelay time.Duration) RateLimiter[T] {
	if limiter == nil {
		limiter = DefaultControllerRateLimiter[T]()
	}
	return &withMaxWaitRateLimiter[T]{limiter: limiter, maxDelay: maxDelay}
}

type withMaxWaitRateLimiter[T comparable] struct {
	limiter  RateLimiter[T]
	maxDelay time.Duration
}

func (r *withMaxWaitRateLimiter[T]) When(item T) time.Duration {
	return min(r.limiter.When(item), r.maxDelay)
}

func (r *withMaxWaitRateLimiter[T]) Forget(item T) { r.limiter.Forget(item) }

func (r *withMaxWaitRateLimiter[T]) NumRequeues(item T) int { return r.limiter.NumRequeues(item) }
