package client

import (
	"net/http"
	"strconv"
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
	seconds, convErr := strconv.Atoi(resp.Header.Get("Retry-After"))
	if convErr != nil || seconds < 0 {
		return 0, false
	}
	return min(time.Duration(seconds)*time.Second, maxRetryAfter), true
}

// maxRetryAfter caps the wait a server's Retry-After can ask for. kube-apiserver
// asks for a second or a few; a larger figure is a misconfigured or hostile
// server, and obeying "Retry-After: 86400" would stall an informer for a day per
// retry. Ten retries at the cap wait five minutes in all.
//
// client-go: none (rest.Request waits for whatever the server asks).
const maxRetryAfter = 30 * time.Second
