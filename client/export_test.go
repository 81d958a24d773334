package client

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// WatchStream runs the watch goroutine over body exactly as Watch does after the
// server answered 200, with an event size limit of maxBytes. Tests and the fuzz target
// use it to feed the decoder arbitrary streams without a server.
func WatchStream(ctx context.Context, body io.ReadCloser, gv schema.GroupVersion, kind string, scheme *runtime.Scheme, maxBytes int) watch.Interface {
	ctx, cancel := context.WithCancel(ctx)
	w := &streamWatcher{
		result: make(chan watch.Event),
		cancel: cancel,
		body:   body,
		dec:    newEventDecoder(body, gv, kind, scheme, maxBytes),
		logger: slog.New(slog.DiscardHandler),
	}
	go w.run(ctx)
	return w
}

// ServeInProcess makes c send every request to h in-process, with no sockets, so a test
// of timing (retry delays) can run inside a synctest bubble. Streaming responses
// (watches) are not supported: h's whole answer is buffered.
func ServeInProcess(c *Client, h http.Handler) {
	c.http.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result(), nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// SetRoundTripper makes c send every request through rt.
func SetRoundTripper(c *Client, rt func(*http.Request) (*http.Response, error)) {
	c.http.Transport = roundTripFunc(rt)
}

// TransportOf returns the RoundTripper c sends its requests through.
func TransportOf(c *Client) http.RoundTripper { return c.http.Transport }
