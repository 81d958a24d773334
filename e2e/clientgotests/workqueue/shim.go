// Package workqueue maps client-go's util/workqueue names onto informerlab's
// package workqueue, so that client-go's own test files compile and run
// against informerlab. It adapts only names and shapes:
//
//   - client-go's untyped names (Interface, RateLimiter, ...) are aliases of
//     informerlab's generic types at T = any; its Typed names are aliases of
//     the generic types themselves;
//   - client-go's Type is a struct the tests hold by pointer; here it is a
//     struct around informerlab's queue;
//   - client-go's config structs become informerlab's options (only the
//     fields informerlab has: a fake Clock or a backing Queue does not
//     compile, on purpose, and the tests that need them are in the list);
//   - the rate limiters' constructors forward with T = any.
//
// Nothing here decides behaviour: every call lands in informerlab.
package workqueue

import (
	"time"

	"github.com/informerlab/informerlab/workqueue"
)

// Queues.

type (
	TypedInterface[T comparable]             = workqueue.Interface[T]
	Interface                                = TypedInterface[any]
	TypedDelayingInterface[T comparable]     = workqueue.DelayingInterface[T]
	DelayingInterface                        = TypedDelayingInterface[any]
	TypedRateLimitingInterface[T comparable] = workqueue.RateLimitingInterface[T]
	RateLimitingInterface                    = TypedRateLimitingInterface[any]
)

// Typed is client-go's concrete queue type, held by pointer.
type Typed[T comparable] struct {
	workqueue.Interface[T]
}

// Type is Typed at any.
type Type = Typed[any]

// TypedQueueConfig is the part of client-go's queue config informerlab has.
type TypedQueueConfig[T comparable] struct {
	Name            string
	MetricsProvider MetricsProvider
}

type QueueConfig = TypedQueueConfig[any]

func (c TypedQueueConfig[T]) options() []workqueue.Option {
	return []workqueue.Option{workqueue.WithName(c.Name), workqueue.WithMetricsProvider(c.MetricsProvider)}
}

func NewTyped[T comparable]() *Typed[T] { return &Typed[T]{workqueue.New[T]()} }
func New() *Type                        { return NewTyped[any]() }
func NewTypedWithConfig[T comparable](c TypedQueueConfig[T]) *Typed[T] {
	return &Typed[T]{workqueue.New[T](c.options()...)}
}
func NewWithConfig(c QueueConfig) *Type { return NewTypedWithConfig(c) }
func NewNamed(name string) *Type        { return NewWithConfig(QueueConfig{Name: name}) }

type TypedDelayingQueueConfig[T comparable] struct {
	Name            string
	MetricsProvider MetricsProvider
}

type DelayingQueueConfig = TypedDelayingQueueConfig[any]

func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return workqueue.NewDelaying[T]()
}
func NewDelayingQueue() DelayingInterface { return NewTypedDelayingQueue[any]() }
func NewTypedDelayingQueueWithConfig[T comparable](c TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	return workqueue.NewDelaying[T](workqueue.WithName(c.Name), workqueue.WithMetricsProvider(c.MetricsProvider))
}
func NewDelayingQueueWithConfig(c DelayingQueueConfig) DelayingInterface {
	return NewTypedDelayingQueueWithConfig(c)
}

type TypedRateLimitingQueueConfig[T comparable] struct {
	Name            string
	MetricsProvider MetricsProvider
}

type RateLimitingQueueConfig = TypedRateLimitingQueueConfig[any]

func NewTypedRateLimitingQueue[T comparable](rl TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return workqueue.NewRateLimiting[T](rl)
}
func NewRateLimitingQueue(rl RateLimiter) RateLimitingInterface {
	return NewTypedRateLimitingQueue[any](rl)
}
func NewTypedRateLimitingQueueWithConfig[T comparable](rl TypedRateLimiter[T], c TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	return workqueue.NewRateLimiting[T](rl, workqueue.WithName(c.Name), workqueue.WithMetricsProvider(c.MetricsProvider))
}
func NewRateLimitingQueueWithConfig(rl RateLimiter, c RateLimitingQueueConfig) RateLimitingInterface {
	return NewTypedRateLimitingQueueWithConfig(rl, c)
}

// Rate limiters.

type (
	TypedRateLimiter[T comparable] = workqueue.RateLimiter[T]
	RateLimiter                    = TypedRateLimiter[any]
)

func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return workqueue.DefaultControllerRateLimiter[T]()
}
func DefaultControllerRateLimiter() RateLimiter { return DefaultTypedControllerRateLimiter[any]() }

func NewTypedItemExponentialFailureRateLimiter[T comparable](base, max time.Duration) TypedRateLimiter[T] {
	return workqueue.NewItemExponentialFailureRateLimiter[T](base, max)
}
func NewItemExponentialFailureRateLimiter(base, max time.Duration) RateLimiter {
	return NewTypedItemExponentialFailureRateLimiter[any](base, max)
}

func NewTypedItemFastSlowRateLimiter[T comparable](fast, slow time.Duration, maxFast int) TypedRateLimiter[T] {
	return workqueue.NewItemFastSlowRateLimiter[T](fast, slow, maxFast)
}
func NewItemFastSlowRateLimiter(fast, slow time.Duration, maxFast int) RateLimiter {
	return NewTypedItemFastSlowRateLimiter[any](fast, slow, maxFast)
}

func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return workqueue.NewMaxOfRateLimiter[T](limiters...)
}
func NewMaxOfRateLimiter(limiters ...RateLimiter) RateLimiter {
	return NewTypedMaxOfRateLimiter[any](limiters...)
}

func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	return workqueue.NewWithMaxWaitRateLimiter[T](limiter, maxDelay)
}
func NewWithMaxWaitRateLimiter(limiter RateLimiter, maxDelay time.Duration) RateLimiter {
	return NewTypedWithMaxWaitRateLimiter[any](limiter, maxDelay)
}

// Metrics.

type (
	MetricsProvider     = workqueue.MetricsProvider
	GaugeMetric         = workqueue.GaugeMetric
	SettableGaugeMetric = workqueue.SettableGaugeMetric
	CounterMetric       = workqueue.CounterMetric
	HistogramMetric     = workqueue.HistogramMetric
)

// Parallelizer.

type (
	DoWorkPieceFunc = workqueue.DoWorkPieceFunc
	Options         = workqueue.ParallelizeOption
)

var (
	ParallelizeUntil = workqueue.ParallelizeUntil
	WithChunkSize    = workqueue.WithChunkSize
)
