package ratelimiterlab

import (
	"time"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/workqueue"
)

// Every limiter has the three methods of workqueue.RateLimiter:
//
//   - When(item) returns how long item waits before its next attempt, and
//     counts this attempt (or spends a token);
//   - Forget(item) clears item's failure history;
//   - NumRequeues(item) is the number of attempts since the last Forget.
//
// Every limiter is safe for concurrent use.

// Exponential waits base·2^(n-1) before an item's n-th attempt, capped at
// maxDelay, without overflowing however many attempts there are.
type Exponential[T comparable] struct {
	// Your fields here.
}

// NewExponential returns an Exponential limiter.
func NewExponential[T comparable](base, maxDelay time.Duration) *Exponential[T] {
	panic(grade.NotImplemented("NewExponential"))
}

func (l *Exponential[T]) When(item T) time.Duration {
	panic(grade.NotImplemented("Exponential.When"))
}

func (l *Exponential[T]) Forget(item T) {
	panic(grade.NotImplemented("Exponential.Forget"))
}

func (l *Exponential[T]) NumRequeues(item T) int {
	panic(grade.NotImplemented("Exponential.NumRequeues"))
}

// FastSlow waits fast for each of an item's first maxFast attempts and
// slow after that.
type FastSlow[T comparable] struct {
	// Your fields here.
}

// NewFastSlow returns a FastSlow limiter.
func NewFastSlow[T comparable](fast, slow time.Duration, maxFast int) *FastSlow[T] {
	panic(grade.NotImplemented("NewFastSlow"))
}

func (l *FastSlow[T]) When(item T) time.Duration {
	panic(grade.NotImplemented("FastSlow.When"))
}

func (l *FastSlow[T]) Forget(item T) {
	panic(grade.NotImplemented("FastSlow.Forget"))
}

func (l *FastSlow[T]) NumRequeues(item T) int {
	panic(grade.NotImplemented("FastSlow.NumRequeues"))
}

// MaxOf asks every one of its limiters and returns the longest delay;
// NumRequeues is the largest of theirs; Forget forgets in all.
type MaxOf[T comparable] struct {
	// Your fields here.
}

// NewMaxOf returns a MaxOf limiter.
func NewMaxOf[T comparable](limiters ...workqueue.RateLimiter[T]) *MaxOf[T] {
	panic(grade.NotImplemented("NewMaxOf"))
}

func (l *MaxOf[T]) When(item T) time.Duration {
	panic(grade.NotImplemented("MaxOf.When"))
}

func (l *MaxOf[T]) Forget(item T) {
	panic(grade.NotImplemented("MaxOf.Forget"))
}

func (l *MaxOf[T]) NumRequeues(item T) int {
	panic(grade.NotImplemented("MaxOf.NumRequeues"))
}

// Bucket is a token bucket shared by all items: it holds up to burst
// tokens and earns qps tokens per second. Each When takes a token: zero
// delay while tokens last, then callers line up one 1/qps interval apart.
// NumRequeues is always 0 and Forget does nothing.
type Bucket[T comparable] struct {
	// Your fields here.
}

// NewBucket returns a Bucket, or an error if qps is not a positive finite
// number or burst is below 1.
func NewBucket[T comparable](qps float64, burst int) (*Bucket[T], error) {
	panic(grade.NotImplemented("NewBucket"))
}

func (l *Bucket[T]) When(item T) time.Duration {
	panic(grade.NotImplemented("Bucket.When"))
}

func (l *Bucket[T]) Forget(item T) {
	panic(grade.NotImplemented("Bucket.Forget"))
}

func (l *Bucket[T]) NumRequeues(item T) int {
	panic(grade.NotImplemented("Bucket.NumRequeues"))
}

// Queue is a delaying queue that asks a rate limiter how long a failed
// item waits. It embeds informerlab's delaying queue (lab 2): only the
// three rate-limiting methods are yours.
type Queue[T comparable] struct {
	workqueue.DelayingInterface[T]
	// Your fields here.
}

// NewQueue returns a Queue using limiter.
func NewQueue[T comparable](limiter workqueue.RateLimiter[T]) *Queue[T] {
	panic(grade.NotImplemented("NewQueue"))
}

// AddRateLimited adds item after the delay the limiter gives it.
func (q *Queue[T]) AddRateLimited(item T) {
	panic(grade.NotImplemented("Queue.AddRateLimited"))
}

// Forget clears item's failures in the limiter.
func (q *Queue[T]) Forget(item T) {
	panic(grade.NotImplemented("Queue.Forget"))
}

// NumRequeues is the limiter's count for item.
func (q *Queue[T]) NumRequeues(item T) int {
	panic(grade.NotImplemented("Queue.NumRequeues"))
}
