package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// bridge is the page's three operations as the tab's JavaScript calls them:
// strings in, strings out, and never a panic. A panic in a WebAssembly
// instance ends the Go runtime, and with it the playground: each operation
// recovers its own and answers with it, so the page shows it and goes on.
type bridge struct {
	srv *pipelineweb.Server
}

// control carries out one control, an Action as JSON, and returns the
// answer as JSON: {"message"} or {"error"}, as POST /api/control does.
func (b bridge) control(ctx context.Context, body string) (answer string) {
	defer recovered("control", func(msg string) { answer = errorJSON(msg) })
	_, out := b.srv.Act(ctx, strings.NewReader(body))
	data, err := json.Marshal(out)
	if err != nil {
		return errorJSON("playground: " + err.Error())
	}
	return string(data)
}

// object returns one cached object as YAML, or ok false and why not, as
// GET /api/object does.
func (b bridge) object(kind, key string) (text string, ok bool) {
	defer recovered("object", func(msg string) { text, ok = msg, false })
	out, err := b.srv.Object(kind, key)
	if err != nil {
		return err.Error(), false
	}
	return string(out), true
}

// stream sends the page its messages until ctx ends, as GET /api/events
// does; a panic is sent as a message of its own, "panic", with its text.
func (b bridge) stream(ctx context.Context, send func(event, data string)) {
	defer recovered("event stream", func(msg string) {
		data, _ := json.Marshal(msg)
		send("panic", string(data))
	})
	err := b.srv.Stream(ctx, func(event string, data []byte) error {
		send(event, string(data))
		return nil
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		data, _ := json.Marshal("playground: the event stream stopped: " + err.Error())
		send("panic", string(data))
	}
}

// recovered, deferred, turns a panic into a message for answer: what
// panicked, the value, and the stack, for a bug report.
func recovered(op string, answer func(msg string)) {
	v := recover()
	if v == nil {
		return
	}
	answer(fmt.Sprintf("playground: the %s panicked: %v (the playground goes on; reload the page to start afresh)\n%s", op, v, debug.Stack()))
}

func errorJSON(msg string) string {
	data, _ := json.Marshal(map[string]string{"error": msg})
	return string(data)
}

// memStats is what stats reports of the Go runtime, in bytes.
type memStats struct {
	HeapAlloc, HeapSys, Sys uint64
	Goroutines              int
}

// stats reads the Go runtime's memory after a garbage collection: the live
// heap, what the heap holds from the system, all the runtime holds, and
// the goroutines. The playground's budget test samples it over a run; the
// collection it forces makes HeapAlloc what is alive, not what garbage
// happens to wait.
func stats() memStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memStats{HeapAlloc: m.HeapAlloc, HeapSys: m.HeapSys, Sys: m.Sys, Goroutines: runtime.NumGoroutine()}
}
