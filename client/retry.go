package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// maxRetries bounds how many times one request is sent again after the first try.
//
// client-go: rest.Request's withRetry{maxRetries: 10}.
const maxRetries = 10

// brokenConnectionDelay is how long to wait before re-sending a read whose connection
// broke before the server answered.
const brokenConnectionDelay = time.Second

// retryDelay says whether a request should be sent again, and after how long, given what
// its last attempt got: a transport error err, or a response resp. Two cases qualify:
//
//   - A read (GET: get, list, watch) whose connection broke before an answer: EOF,
//     "connection reset by peer", a GOAWAY. The server may be restarting or a proxy may
//     have dropped an idle connection; a second try usually reaches a live one. Writes are
//     never re-sent after a broken connection: the server may have applied them.
//   - A 429 Too Many Requests or a 5xx that carries Retry-After, to an idempotent method
//     (GET, PUT, DELETE). This is how the API server says "not now, try again in N
//     seconds": priority-and-fairness rejecting a request, or "apiserver is shutting
//     down" (503, Retry-After: 1) while it drains.
//
// A refused connection is not retried here: no server listens, and the Reflector's
// backoff is the right place to wait for one.
//
// client-go: rest.Request.request's retry (IsNextRetry, checkWait, IsProbableEOF).
func retryDelay(method string, resp *http.Response, err error) (time.Duration, bool) {
	if err != nil {
		if method == http.MethodGet && (utilnet.IsProbableEOF(err) || utilnet.IsConnectionReset(err)) {
			return brokenConnectionDelay, true
		}
		return 0, false
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	switch method {
	case http.MethodGet, http.MethodPut, http.MethodDelete:
	default:
		return 0, false
	}
	return retryAfter(resp.Header.Get("Retry-After"), time.Now())
}

// retryAfter reads a Retry-After header at time now, in either of its forms
// (RFC 9110, section 10.2.3): delta-seconds ("120") or an HTTP-date ("Fri, 31
// Dec 1999 23:59:59 GMT"). It returns how long to wait, at most maxRetryAfter,
// and whether the header asks for a retry at all. A number of seconds is
// compared with the cap before it becomes a Duration, so that no figure, not
// even one past what an int64 holds, can wrap into a negative wait; a date
// already past means now. Anything else (a sign, a fraction, a word, nothing)
// is no request to retry: the response is returned as it is.
func retryAfter(header string, now time.Time) (time.Duration, bool) {
	header = strings.TrimSpace(header)
	if header == "" {
		return 0, false
	}
	if strings.Trim(header, "0123456789") == "" {
		seconds, err := strconv.ParseUint(header, 10, 64)
		if err != nil || seconds > uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true // only a figure past the uint64 range fails to parse
		}
		return time.Duration(seconds) * time.Second, true
	}
	if at, err := http.ParseTime(header); err == nil {
		return min(max(at.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// retryAfterSeconds is the Retry-After of resp in whole seconds (rounded up),
// capped as the client's own wait is, or 0: what an error built from resp
// suggests to its caller (apierrors.SuggestsClientDelay).
func retryAfterSeconds(resp *http.Response) int {
	wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	if !ok {
		return 0
	}
	return int((wait + time.Second - 1) / time.Second)
}

// maxRetryAfter caps the wait a server's Retry-After can ask for. kube-apiserver
// asks for a second or a few; a larger figure is a misconfigured or hostile
// server, and obeying "Retry-After: 86400" would stall an informer for a day per
// retry. Ten retries at the cap wait five minutes in all.
//
// client-go: none (rest.Request waits for whatever the server asks, and a
// figure past 9223372036 seconds wraps into a negative wait there).
const maxRetryAfter = 30 * time.Second
