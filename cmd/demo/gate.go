package main

import (
	"context"
	"strconv"
	"sync"
)

// gate sits between the API server and the informers: every list, watch
// request and watch event passes through it.
//
// Normally (settle == nil) it lets everything straight through: the demo runs
// with all the concurrency of the real thing.
//
// In deterministic mode (the golden test) it is a tiny scheduler. It lets one
// thing through at a time — grant one List or Watch call, deliver one watch
// event, close one watch — then calls settle, which returns when every
// goroutine of the program is blocked again (testing/synctest.Wait inside a
// bubble), so that the consequences of that one thing (pop, cache, handlers,
// enqueue, Reconcile, API writes) have all happened before the next thing is let
// through. Among the things waiting it picks the lowest resourceVersion, then
// the lowest watcher id, then the oldest: a total order that does not depend on
// goroutine scheduling. That makes the transcript the same on every run.
type gate struct {
	settle func()
	// onSettle runs after each settle (the narrator's flush).
	onSettle func()

	mu sync.Mutex // guards pending, quiesce and nextID
	// pending holds what waits to be let through. Items of one watcher are in
	// arrival order with non-decreasing rv, so picking the smallest
	// (rv, watcher, seq) keeps each watcher's items in order.
	pending []gateItem
	quiesce []chan struct{}
	nextSeq uint64
	nextID  int

	wake chan struct{} // capacity 1: something was added
}

type gateItem struct {
	rv      uint64
	watcher int
	seq     uint64
	run     func()
}

func newGate(settle func()) *gate {
	return &gate{settle: settle, wake: make(chan struct{}, 1)}
}

// deterministic reports whether the gate schedules.
func (g *gate) deterministic() bool { return g.settle != nil }

// newWatcherID returns an id for one ListerWatcher: its rank among equals.
func (g *gate) newWatcherID() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	return g.nextID
}

// add queues run; in pass-through mode it runs it at once.
func (g *gate) add(watcher int, rv string, run func()) {
	if !g.deterministic() {
		run()
		return
	}
	n, _ := strconv.ParseUint(rv, 10, 64)
	g.mu.Lock()
	g.nextSeq++
	g.pending = append(g.pending, gateItem{rv: n, watcher: watcher, seq: g.nextSeq, run: run})
	g.mu.Unlock()
	g.poke()
}

// request blocks a List or Watch call until the gate lets it through.
func (g *gate) request(ctx context.Context, watcher int) error {
	if !g.deterministic() {
		return nil
	}
	granted := make(chan struct{})
	g.add(watcher, "0", func() { close(granted) })
	select {
	case <-granted:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait returns once nothing is waiting at the gate and everything has settled
// (at once in pass-through mode).
func (g *gate) wait(ctx context.Context) {
	if !g.deterministic() {
		return
	}
	done := make(chan struct{})
	g.mu.Lock()
	g.quiesce = append(g.quiesce, done)
	g.mu.Unlock()
	g.poke()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (g *gate) poke() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// run is the scheduler loop of deterministic mode; it returns when ctx ends.
func (g *gate) run(ctx context.Context) {
	if !g.deterministic() {
		return
	}
	for {
		g.settle()
		if g.onSettle != nil {
			g.onSettle()
		}
		if ctx.Err() != nil {
			return
		}
		g.mu.Lock()
		if len(g.pending) > 0 {
			best := 0
			for i, it := range g.pending {
				b := g.pending[best]
				if it.rv < b.rv || (it.rv == b.rv && (it.watcher < b.watcher || (it.watcher == b.watcher && it.seq < b.seq))) {
					best = i
				}
			}
			it := g.pending[best]
			g.pending = append(g.pending[:best], g.pending[best+1:]...)
			g.mu.Unlock()
			it.run()
			continue
		}
		waiting := g.quiesce
		g.quiesce = nil
		g.mu.Unlock()
		if len(waiting) > 0 {
			for _, c := range waiting {
				close(c)
			}
			continue
		}
		select {
		case <-g.wake:
		case <-ctx.Done():
			return
		}
	}
}
