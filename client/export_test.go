package client

import (
	"context"
	"io"
	"log/slog"

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
