package demoengine

import (
	"context"
	"io"
	"time"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// TabMode is what the page says it runs on, in a browser tab.
const TabMode = "the embedded fakeapi, in this tab"

// Tab is the world of the pipeline page with no HTTP server in front: the
// embedded fakeapi, the sample controller and the Deployment simulator,
// recorded for the page, whose three operations (the event stream, a
// control, an object) are the Server's methods Stream, Act and Object.
// cmd/playground runs it in a browser tab, compiled to WebAssembly, and
// calls them from JavaScript. Every control of `demo --web` works on it.
type Tab struct {
	p      *page
	cancel context.CancelFunc
}

// StartTab builds and starts the page's embedded world; its narration (the
// terminal demo's lines) goes to narration. Stop ends it.
func StartTab(ctx context.Context, narration io.Writer) (*Tab, error) {
	ctx, cancel := context.WithCancel(ctx)
	n := &narrator{out: narration}
	start := time.Now()
	n.clock = func() time.Duration { return time.Since(start) }
	p, err := newPage(ctx, options{scenario: "story", speed: 1}, n, env{})
	if err != nil {
		cancel()
		return nil, err
	}
	p.ctl.info.Mode = TabMode
	p.w.start(ctx)
	return &Tab{p: p, cancel: cancel}, nil
}

// Server is the page's server: Stream, Act and Object.
func (t *Tab) Server() *pipelineweb.Server { return t.p.srv }

// Stop ends every goroutine of the world and waits for them.
func (t *Tab) Stop() error {
	t.cancel()
	return t.p.stop()
}
