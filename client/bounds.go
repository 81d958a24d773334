package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// timeoutError says that Config.Timeout ran out. It is a net.Error whose
// Timeout is true, so utilnet.IsTimeout recognises it.
type timeoutError struct {
	verb, resource string
	after          time.Duration
	headers        bool // a watch, bounded only until its headers
}

func (e *timeoutError) Error() string {
	if e.headers {
		return fmt.Sprintf("client: %s %s: no response headers within %v (Config.Timeout)", e.verb, e.resource, e.after)
	}
	return fmt.Sprintf("client: %s %s: no complete answer within %v (Config.Timeout)", e.verb, e.resource, e.after)
}

func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }

// tooLargeError says that a response body went past Config.MaxResponseBytes.
type tooLargeError struct {
	what string
	max  int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("client: %s: the response is larger than MaxResponseBytes (%d bytes); raise Config.MaxResponseBytes, or list in pages (ListOptions.Limit)", e.what, e.max)
}

// boundedBody is a response body read under the request's bounds: reading
// past max bytes fails with a tooLargeError, a read cut short by the Timeout
// fails with the timeoutError, and Close releases the request's timer and
// context.
type boundedBody struct {
	body    io.ReadCloser
	ctx     context.Context
	release func()

	what      string
	max, left int64 // left counts down from max; max == 0: no cap
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.max > 0 {
		if b.left < 0 {
			return 0, &tooLargeError{what: b.what, max: b.max}
		}
		// One byte past the cap tells a body of exactly max bytes from a larger one.
		if int64(len(p)) > b.left+1 {
			p = p[:b.left+1]
		}
	}
	n, err := b.body.Read(p)
	if b.max > 0 {
		b.left -= int64(n)
		if b.left < 0 {
			return n + int(b.left), &tooLargeError{what: b.what, max: b.max}
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		var expired *timeoutError
		if errors.As(context.Cause(b.ctx), &expired) {
			err = expired
		}
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.body.Close()
	b.release()
	return err
}

// maxRedirects bounds a chain of redirects, as net/http's default does.
const maxRedirects = 10

// checkRedirect decides which redirects the client follows. Only a read (GET)
// follows one, and only within the server's own scheme, host and port: a
// redirected write would be re-sent as a GET by net/http and "succeed" without
// having written anything, and credentials (the bearer token, the client
// certificate) must never travel to another server or over plain http. A
// redirect that is not followed is returned to the caller as the 3xx response
// it is, which becomes an error that says why.
//
// client-go: rest.Client follows redirects with net/http's defaults.
func checkRedirect(next *http.Request, via []*http.Request) error {
	first := via[0]
	switch {
	case first.Method != http.MethodGet,
		next.URL.Scheme != first.URL.Scheme,
		next.URL.Host != first.URL.Host,
		len(via) >= maxRedirects:
		return http.ErrUseLastResponse
	}
	return nil
}
