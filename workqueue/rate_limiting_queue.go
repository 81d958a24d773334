package workqueue

// RateLimitingInterface is a delaying queue that also asks a [RateLimiter] how long
// a failed item should wait before it is retried.
//
// client-go: util/workqueue.TypedRateLimitingInterface.
type RateLimitingInterface[T comparable] interface {
	DelayingInterface[T]
	// AddRateLimited adds item after the delay the rate limiter decides, counting
	// one more failure for it. Call it when processing item failed.
	AddRateLimited(item T)
	// Forget clears item's failure history in the rate limiter, so its next
	// failure starts the backoff again from the shortest delay. Call it when
	// processing item succeeded. It does not replace Done: Forget is about the
	// backoff, Done is about the queue, and a worker calls Done for every item.
	Forget(item T)
	// NumRequeues returns how many times item was rate-limited since it was last
	// forgotten.
	NumRequeues(item T) int
}

// NewRateLimiting returns an empty rate-limiting queue using limiter; a nil limiter
// means [DefaultControllerRateLimiter]. Like [NewDelaying], it starts no goroutine
// until the first delayed add.
func NewRateLimiting[T comparable](limiter RateLimiter[T], opts ...Option) RateLimitingInterface[T] {
	if limiter == nil {
		limiter = DefaultControllerRateLimiter[T]()
	}
	return &rateLimitingQueue[T]{
		delayingQueue: newDelayingQueue[T](buildOptions(opts)),
		limiter:       limiter,
	}
}

// rateLimitingQueue is a delaying queue plus a limiter; it keeps no state of its own.
type rateLimitingQueue[T comparable] struct {
	*delayingQueue[T]
	limiter RateLimiter[T]
}

func (q *rateLimitingQueue[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

func (q *rateLimitingQueue[T]) Forget(item T) {
	q.limiter.Forget(item)
}

func (q *rateLimitingQueue[T]) NumRequeues(item T) int {
	return q.limiter.NumRequeues(item)
}
