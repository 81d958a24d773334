//go:build !labs_reference

package ratelimiterlab

import (
	"time"

	"github.com/informerlab/informerlab/labs/suite/ratelimitersuite"
	"github.com/informerlab/informerlab/workqueue"
)

// impl is the implementation graded: yours.
var impl = ratelimitersuite.Impl{
	Exponential: func(base, maxDelay time.Duration) ratelimitersuite.Limiter {
		return NewExponential[string](base, maxDelay)
	},
	FastSlow: func(fast, slow time.Duration, maxFast int) ratelimitersuite.Limiter {
		return NewFastSlow[string](fast, slow, maxFast)
	},
	MaxOf: func(limiters ...ratelimitersuite.Limiter) ratelimitersuite.Limiter {
		return NewMaxOf(limiters...)
	},
	Bucket: func(qps float64, burst int) (ratelimitersuite.Limiter, error) {
		return NewBucket[string](qps, burst)
	},
	Queue: func(l ratelimitersuite.Limiter) workqueue.RateLimitingInterface[string] {
		return NewQueue(l)
	},
}
