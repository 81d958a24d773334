package demoengine

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

	mu sync.Mutex // guards pending, quiesce, nextSeq, nextID and the list hold
	// pending holds what waits to be let through. Items of one watcher are in
	// arrival order with non-decreasing rv, so picking the smallest
	// (rv, watcher, seq) keeps each watcher's items in order.
	pending []gateItem
	quiesce []chan struct{}
	nextSeq uint64
	nextID  int
	// holdLists, when positive, is how many List calls to hold back until
	// they have all arrived (held): Reflectors that relist after a jittered
	// backoff then relist at one moment, in watcher order.
	holdLists int
	held      []func()
	// stopped is set when run has returned: from then on add runs at once.
	stopped bool

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
	if g.stopped {
		g.mu.Unlock()
		run()
		return
	}
	g.nextSeq++
	g.pending = append(g.pending, gateItem{rv: n, watcher: watcher, seq: g.nextSeq, run: run})
	g.mu.Unlock()
	g.poke()
}

// request blocks a List (list) or Watch call until the gate lets it
// through.
func (g *gate) request(ctx context.Context, watcher int, list bool) error {
	if !g.deterministic() {
		return nil
	}
	granted := make(chan struct{})
	queue := func() { g.add(watcher, "0", func() { close(granted) }) }
	g.mu.Lock()
	if list && g.holdLists > 0 {
		g.held = append(g.held, queue)
		queue = nil
		if len(g.held) == g.holdLists {
			held := g.held
			g.held, g.holdLists = nil, 0
			queue = func() {
				for _, q := range held {
					q()
				}
			}
		}
	}
	g.mu.Unlock()
	if queue != nil {
		queue()
	}
	select {
	case <-granted:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// holdLists makes the next n List calls wait until all n have arrived
// (deterministic mode only).
func (g *gate) holdListsUntil(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holdLists = n
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

// run is the scheduler loop of deterministic mode; it returns when ctx ends,
// after running whatever still waits (by then every watch has been stopped,
// so the waiting events are dropped and the watches' channels closed), and
// from then on add runs things at once.
func (g *gate) run(ctx context.Context) {
	if !g.deterministic() {
		return
	}
	defer func() {
		g.mu.Lock()
		g.stopped = true
		left := g.pending
		g.pending = nil
		g.mu.Unlock()
		for _, it := range left {
			it.run()
		}
	}()
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
