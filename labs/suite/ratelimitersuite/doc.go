// Package ratelimitersuite is the graded behaviour of the rate limiters
// and of the rate-limiting queue (diagram step 8, the worker's error
// path): how long a failed item waits before its next reconcile.
//
// Two kinds of limiter are graded. Per-item limiters (the exponential
// one, fast-slow) count an item's failures until Forget; the token bucket
// is shared by all items and limits the overall retry rate. MaxOf
// combines them the way DefaultControllerRateLimiter does: an item waits
// for the longest delay any of them gives. The queue's AddRateLimited
// asks the limiter for a delay and hands it to AddAfter.
//
// Each behaviour uses one constructor of the [Impl] and takes whatever
// else it needs from informerlab (MaxOf combines informerlab's limiters;
// the queue gets informerlab's exponential limiter), so a learner sees
// each limiter pass on its own. Time-dependent behaviours run in
// testing/synctest bubbles: the bucket's delays are checked exactly.
//
// informerlab's workqueue runs this suite in workqueue/suite_test.go;
// labs/3-ratelimiters grades a learner's limiters with it.
package ratelimitersuite
