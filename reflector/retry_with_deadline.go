package reflector

import (
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// internalErrorResetPeriod: a 500 that comes this long or longer after the
// previous one starts a new streak of errors, with a fresh retry window.
const internalErrorResetPeriod = time.Minute

// retryWithDeadline decides whether a watch that ended with a 500 Internal
// Error is re-opened at once, without a relist. A server that answers one
// watch with a 500 is often fine a moment later (an etcd leader change, a
// restarting aggregated server), and a relist is the most expensive request
// there is; but a server that keeps failing must not be hammered forever.
// So the Reflector re-watches at once while the current streak of 500s
// (errors less than internalErrorResetPeriod apart) is younger than
// maxDuration, and relists, as for any other error, after that.
//
// A zero maxDuration, the default, never retries: every 500 relists.
// Only the goroutine running ListAndWatch uses it.
//
// client-go: tools/cache.RetryWithDeadline (retry_with_deadline.go).
type retryWithDeadline struct {
	maxDuration time.Duration
	firstError  time.Time // start of the current streak; zero: no streak
	lastError   time.Time
}

// after records how a watch ended. Only 500s count; anything else leaves
// the streak as it is.
func (r *retryWithDeadline) after(err error, now time.Time) {
	if !apierrors.IsInternalError(err) {
		return
	}
	if now.Sub(r.lastError) >= internalErrorResetPeriod {
		r.firstError = time.Time{}
	}
	if r.firstError.IsZero() {
		r.firstError = now
	}
	r.lastError = now
}

// shouldRetry reports whether the streak is still within its window. Once it
// is not, the streak is forgotten: the relist that follows starts afresh.
func (r *retryWithDeadline) shouldRetry(now time.Time) bool {
	if r.maxDuration <= 0 {
		return false
	}
	if now.Sub(r.firstError) <= r.maxDuration {
		return true
	}
	r.firstError, r.lastError = time.Time{}, time.Time{}
	return false
}
