package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Watch opens a watch (GET ...?watch=true) and returns it once the server has answered
// 200. It starts one goroutine that decodes the stream into ResultChan; the goroutine
// exits, and ResultChan closes, when the server ends the stream, when ctx is cancelled,
// when Stop is called, or after an error event.
//
// The two forms of "your resourceVersion is too old" both reach the caller: an HTTP 410
// is returned from Watch as an *apierrors.StatusError (apierrors.IsGone or
// IsResourceExpired), and the usual HTTP 200 followed by an ERROR event arrives as a
// watch.Error event whose Object is the *metav1.Status. A stream that carries something
// other than whole, valid events (malformed, truncated, oversized, wrong kind) ends
// with a watch.Error event whose Status has reason InternalError and says what was wrong.
//
// Step 1 (watch): GET ...?allowWatchBookmarks=true&resourceVersion=N&timeoutSeconds=T&watch=true.
func (r *ResourceClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	ctx, cancel := context.WithCancel(ctx)
	req := &request{verb: "watch", method: http.MethodGet, namespace: r.namespace, query: listQuery(opts)}
	resp, err := r.send(ctx, req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel()
		defer resp.Body.Close()
		return nil, r.readStatusError(resp, req)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			resp.Body.Close()
			cancel()
			return nil, fmt.Errorf("client: watch %s: response Content-Type is %q, want application/json", r.gvr.Resource, ct)
		}
	}
	w := &streamWatcher{
		result: make(chan watch.Event),
		cancel: cancel,
		body:   resp.Body,
		dec:    newEventDecoder(resp.Body, r.gvr.GroupVersion(), r.watchKind(), r.client.scheme, MaxWatchEventBytes),
		logger: r.client.logger.With("resource", r.gvr.String()),
	}
	go w.run(ctx)
	return w, nil
}

// streamWatcher is the watch.Interface over one HTTP watch response.
//
// client-go: rest/watch.StreamWatcher.
type streamWatcher struct {
	result chan watch.Event   // closed by run when it returns
	cancel context.CancelFunc // cancels the request: unblocks a Read in progress
	body   io.ReadCloser
	dec    *eventDecoder
	logger *slog.Logger
}

// ResultChan returns the events; it is closed when the watch ends.
func (w *streamWatcher) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the watch; ResultChan closes promptly. It is safe to call more than once
// and from any goroutine.
func (w *streamWatcher) Stop() { w.cancel() }

// run decodes events until the stream ends or the watch is stopped.
func (w *streamWatcher) run(ctx context.Context) {
	defer close(w.result)
	defer w.body.Close()
	defer w.cancel()
	for {
		ev, err := w.dec.Decode()
		if ctx.Err() != nil {
			return // stopped or cancelled: end quietly, whatever the read returned
		}
		var bad *decodeError
		switch {
		case err == nil:
			if !w.send(ctx, ev) {
				return
			}
		case errors.As(err, &bad):
			w.logger.Warn("client: watch stream broken", "err", err)
			w.send(ctx, watch.Event{Type: watch.Error, Object: &apierrors.NewInternalError(err).ErrStatus})
			return
		case errors.Is(err, io.EOF):
			return // the server ended the stream between events: a clean end
		default:
			// The connection broke between events: nothing was half-delivered, so
			// this is a clean end too; the caller re-watches from its last resourceVersion.
			w.logger.Debug("client: watch connection ended", "err", err)
			return
		}
	}
}

// send delivers ev unless the watch is stopped first.
func (w *streamWatcher) send(ctx context.Context, ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
