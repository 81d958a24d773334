package demoengine

import (
	"context"
	"fmt"
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
	srv    *pipelineweb.Server
	stop   func() error
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
	return &Tab{srv: p.srv, stop: p.stop, cancel: cancel}, nil
}

// StartShardTab builds and starts the replicas page's world, as `demo --web
// --shards replicas` runs it, with no HTTP server: replicas sharded sample
// controllers sharing 16 buckets over the embedded fakeapi, the page's
// status carrying their lanes and the bucket tiles, and its "kill a
// replica" control. replicas must be 2 to 8.
func StartShardTab(ctx context.Context, narration io.Writer, replicas int) (*Tab, error) {
	if replicas < 2 || replicas > maxTabShards {
		return nil, fmt.Errorf("demo: shards wants 2 to %d replicas, got %d", maxTabShards, replicas)
	}
	ctx, cancel := context.WithCancel(ctx)
	n := &narrator{out: narration}
	start := time.Now()
	n.clock = func() time.Duration { return time.Since(start) }
	srv, _, stop, err := startShardWorld(ctx, n, replicas)
	if err != nil {
		cancel()
		return nil, err
	}
	return &Tab{srv: srv, stop: func() error { stop(); return nil }, cancel: cancel}, nil
}

// maxTabShards bounds the replicas a tab runs: each is a whole sample
// controller in the tab's one thread.
const maxTabShards = 8

// Server is the page's server: Stream, Act and Object.
func (t *Tab) Server() *pipelineweb.Server { return t.srv }

// Stop ends every goroutine of the world and waits for them.
func (t *Tab) Stop() error {
	t.cancel()
	return t.stop()
}
