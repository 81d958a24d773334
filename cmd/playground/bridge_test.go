package main

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/demoengine"
)

// startBridge starts the tab's world, as main does in the browser, and
// stops it when the test ends.
func startBridge(t *testing.T) bridge {
	t.Helper()
	tab, err := demoengine.StartTab(context.Background(), io.Discard)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tab.Stop()) })
	return bridge{srv: tab.Server()}
}

func answer(t *testing.T, s string) map[string]string {
	t.Helper()
	var m map[string]string
	require.NoError(t, json.Unmarshal([]byte(s), &m), "the answer is JSON: %s", s)
	return m
}

// TestBridgeCarriesOutControlsAndRefusesBadInput: the page's controls
// through the bridge answer as POST /api/control does: a message when done,
// a clear error for a malformed request, an unknown action or a bad name,
// never a panic.
// Diagram: steps 1-9. client-go: none.
func TestBridgeCarriesOutControlsAndRefusesBadInput(t *testing.T) {
	b := startBridge(t)

	created := answer(t, b.control(t.Context(), `{"name":"create","args":{"name":"web","replicas":"2"}}`))
	malformed := answer(t, b.control(t.Context(), `{"name":`))
	unknown := answer(t, b.control(t.Context(), `{"name":"explode"}`))
	badName := answer(t, b.control(t.Context(), `{"name":"create","args":{"name":"Not A Name","replicas":"1"}}`))
	notPaused := answer(t, b.control(t.Context(), `{"name":"step"}`))

	assert.Equal(t, "Foo default/web created, asking for Deployment web-nginx with 2 replica(s)", created["message"])
	assert.Contains(t, malformed["error"], "pipelineweb: bad control request")
	assert.Equal(t, `pipelineweb: unknown action "explode"`, unknown["error"])
	assert.Contains(t, badName["error"], `demo: Foo name "Not A Name"`)
	assert.Contains(t, notPaused["error"], "not paused")
}

// TestBridgeServesCachedObjects: the key inspector's object view through
// the bridge: a cached Foo as YAML, a missing one as a clear error.
// Diagram: steps 4/5, 9. client-go: none.
func TestBridgeServesCachedObjects(t *testing.T) {
	b := startBridge(t)
	deadline := time.Now().Add(10 * time.Second)
	text, ok := b.object("Foo", "default/alpha")
	for !ok && time.Now().Before(deadline) { // the informer's first list fills the cache
		time.Sleep(10 * time.Millisecond)
		text, ok = b.object("Foo", "default/alpha")
	}

	missing, missingOK := b.object("Foo", "default/nope")
	noKind, noKindOK := b.object("Pod", "default/x")

	require.True(t, ok, text)
	assert.Contains(t, text, "name: alpha")
	assert.False(t, missingOK)
	assert.Equal(t, `pipelineweb: Foo "default/nope" is not in the cache: pipelineweb: not in the cache`, missing)
	assert.False(t, noKindOK)
	assert.Contains(t, noKind, `no cache of kind "Pod"`)
}

// TestBridgeStreamsHelloThenEvents: the event stream through the bridge
// starts with hello (the tab's mode and the history), then batches.
// Diagram: steps 1-9. client-go: none.
func TestBridgeStreamsHelloThenEvents(t *testing.T) {
	b := startBridge(t)
	ctx, cancel := context.WithCancel(t.Context())
	type msg struct{ event, data string }
	msgs := make(chan msg, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.stream(ctx, func(event, data string) {
			select {
			case msgs <- msg{event, data}:
			default:
			}
		})
	}()

	first := <-msgs
	var hello struct {
		Info struct{ Mode string } `json:"info"`
	}
	require.Equal(t, "hello", first.event)
	require.NoError(t, json.Unmarshal([]byte(first.data), &hello))
	assert.Equal(t, demoengine.TabMode, hello.Info.Mode)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end with its context")
	}
}

// TestBridgeRecoversPanics: a panic in an operation is the operation's
// answer, with what panicked; the Go runtime, and the playground, go on.
// Diagram: none. client-go: none.
func TestBridgeRecoversPanics(t *testing.T) {
	var b bridge // no server: every operation panics on a nil pointer

	ctl := answer(t, b.control(t.Context(), `{"name":"pause"}`))
	text, ok := b.object("Foo", "default/alpha")
	var streamed []string
	b.stream(t.Context(), func(event, data string) { streamed = append(streamed, event, data) })

	assert.Contains(t, ctl["error"], "playground: the control panicked: runtime error: invalid memory address or nil pointer dereference")
	assert.False(t, ok)
	assert.Contains(t, text, "playground: the object panicked")
	require.Len(t, streamed, 2)
	assert.Equal(t, "panic", streamed[0])
	assert.Contains(t, streamed[1], "playground: the event stream panicked")
}

// TestStatsReportTheRuntimesMemory: stats, which the budget test samples
// in the browser, reports a live heap no larger than the heap, and the
// goroutines of a running world.
// Diagram: none. client-go: none.
func TestStatsReportTheRuntimesMemory(t *testing.T) {
	before := stats().Goroutines
	b := startBridge(t)
	deadline := time.Now().Add(10 * time.Second)
	for _, ok := b.object("Foo", "default/alpha"); !ok && time.Now().Before(deadline); _, ok = b.object("Foo", "default/alpha") {
		time.Sleep(10 * time.Millisecond) // the informers' first list fills the cache
	}

	s := stats()

	assert.Positive(t, s.HeapAlloc)
	assert.LessOrEqual(t, s.HeapAlloc, s.HeapSys)
	assert.LessOrEqual(t, s.HeapSys, s.Sys)
	assert.Greater(t, s.Goroutines, before+5, "the world's informers, controllers and servers run")
}
