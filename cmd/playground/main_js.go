//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/informerlab/informerlab/internal/demoengine"
)

// main starts the page's embedded world in the tab and hands the page its
// bridge: it calls the page's informerlabPlaygroundStarted(api), where
// api has
//
//	listen(send) -> stop    send(event, json) for each message of the stream
//	control(json) -> Promise<json>
//	object(kind, key) -> Promise<{ok, text}>
//	stats() -> {heapAlloc, heapSys, sys, goroutines}   the Go runtime's memory, for measuring
//
// or informerlabPlaygroundFailed(message) if the world did not start.
//
// With ?shards=N in the page's address (2 to 8) the tab runs the replicas
// page instead, as `demo --web --shards N` does: N sharded sample
// controllers sharing 16 buckets, and "kill a replica".
func main() {
	tab, err := startTab(js.Global().Get("location").Get("search").String())
	if err != nil {
		js.Global().Call("informerlabPlaygroundFailed", err.Error())
		return
	}
	b := bridge{srv: tab.Server()}
	api := js.Global().Get("Object").New()
	api.Set("listen", js.FuncOf(func(_ js.Value, args []js.Value) any {
		send := args[0]
		ctx, cancel := context.WithCancel(context.Background())
		go b.stream(ctx, func(event, data string) { send.Invoke(event, data) })
		return js.FuncOf(func(js.Value, []js.Value) any { cancel(); return nil })
	}))
	api.Set("control", js.FuncOf(func(_ js.Value, args []js.Value) any {
		body := args[0].String()
		return promise(func() any { return b.control(context.Background(), body) })
	}))
	api.Set("object", js.FuncOf(func(_ js.Value, args []js.Value) any {
		kind, key := args[0].String(), args[1].String()
		return promise(func() any {
			text, ok := b.object(kind, key)
			return map[string]any{"ok": ok, "text": text}
		})
	}))
	api.Set("stats", js.FuncOf(func(js.Value, []js.Value) any {
		s := stats()
		return map[string]any{"heapAlloc": s.HeapAlloc, "heapSys": s.HeapSys, "sys": s.Sys, "goroutines": s.Goroutines}
	}))
	js.Global().Call("informerlabPlaygroundStarted", api)
	select {} // the world runs until the tab closes
}

// startTab starts the pipeline page's world, or the replicas page's when
// the query (location.search) asks for shards.
func startTab(query string) (*demoengine.Tab, error) {
	q, err := url.ParseQuery(strings.TrimPrefix(query, "?"))
	if err != nil || q.Get("shards") == "" {
		return demoengine.StartTab(context.Background(), io.Discard)
	}
	n, err := strconv.Atoi(q.Get("shards"))
	if err != nil {
		return nil, fmt.Errorf("playground: ?shards=%q: want a number of replicas, 2 to 8", q.Get("shards"))
	}
	return demoengine.StartShardTab(context.Background(), io.Discard, n)
}

// promise runs do on a goroutine of its own (a call from JavaScript must
// not block the browser's event loop) and returns a Promise of its result.
func promise(do func() any) js.Value {
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve := args[0]
		go func() { resolve.Invoke(do()) }()
		return nil
	})
	defer executor.Release() // the Promise constructor calls it at once
	return js.Global().Get("Promise").New(executor)
}
