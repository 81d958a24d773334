package reflector

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// The error taxonomy. What the Reflector does after a failure depends only on
// which of these classes the error falls in (docs/reflector.md explains why):
//
//	expired or too large resourceVersion -> list again at "" (consistent read)
//	429 Too Many Requests, connection refused, a watch request timed out -> back off, re-watch, no relist
//	500 Internal Error, within MaxInternalErrorRetryDuration -> re-watch at once, no relist
//	anything else -> back off, relist at the last seen resourceVersion

// errStopRequested ends a watch because the context was cancelled.
var errStopRequested = errors.New("reflector: stop requested")

// errIdleTimeout ends a watch on which nothing arrived for IdleTimeout.
var errIdleTimeout = errors.New("reflector: watch idle timeout")

// errVeryShortWatch ends a watch that closed within a second without a single
// event: something between the Reflector and the server is refusing watches,
// and re-watching at once would spin.
var errVeryShortWatch = errors.New("reflector: very short watch: closed within a second with no events")

// errNoInitialEventsEnd ends a streaming list whose stream closed before the
// bookmark that marks the end of the initial events.
var errNoInitialEventsEnd = errors.New("reflector: streaming list ended before the initial-events-end bookmark")

// isExpiredError reports a 410: the resourceVersion asked for is older than
// the server's history (or the continue token has expired). Old servers used
// the reason Gone, current ones Expired.
func isExpiredError(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// isTooLargeResourceVersionError reports that the resourceVersion asked for is
// newer than the server (or its cache) has seen; for example after talking to
// an API server that is ahead of this one. Current servers say so with a status
// cause; servers before Kubernetes 1.19 only with a 504 and a message.
func isTooLargeResourceVersionError(err error) bool {
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	if !apierrors.IsTimeout(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	const msg = "Too large resource version"
	s := status.Status()
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			if c.Message == msg {
				return true
			}
		}
	}
	return strings.Contains(s.Message, msg)
}

// isResourceVersionUnavailable reports the errors after which the Reflector
// lists at "" instead of at its last seen resourceVersion.
func isResourceVersionUnavailable(err error) bool {
	return isExpiredError(err) || isTooLargeResourceVersionError(err)
}

// isRetriableWatchError reports the errors after which the Reflector backs
// off and re-opens the watch without relisting: the server is overloaded or
// unreachable, nothing suggests the Reflector's state is stale, and a relist
// would add the most expensive request there is to a server that is already
// struggling.
func isRetriableWatchError(err error) bool {
	return utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err) || utilnet.IsTimeout(err)
}
