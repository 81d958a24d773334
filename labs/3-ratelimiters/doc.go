// Package ratelimiterlab is lab 3: write the rate limiters and the
// rate-limiting queue. See README.md; grade it with `go test` in this
// directory.
//
// Write what decides how long a failed item waits before its next
// reconcile: a per-item exponential backoff, a fast-then-slow limiter, a
// token bucket shared by all items, `MaxOf` to combine them
// (`DefaultControllerRateLimiter` is MaxOf(exponential 5ms→1000s, bucket 10
// qps / burst 100)), and the queue method that uses them, `AddRateLimited`.
// A controller that retries a broken object in a tight loop burns the API
// server; one that waits a fixed minute is slow to recover. Backoff is the
// middle way.
//
// Diagram step 8, the worker's error path: AddRateLimited after a
// failed Reconcile, Forget after a good one.
//
// Your code goes in limiters.go; TestGrade (grade_test.go) grades it with
// labs/suite/ratelimitersuite, the suite informerlab's own implementation passes.
package ratelimiterlab
