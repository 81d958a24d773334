package demoengine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/internal/pipelinetrace"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	"github.com/informerlab/informerlab/reflector"
)

// narratedLW is the ListerWatcher of one informer, for step 1: the gate
// (gatedLW) holds back its calls and watch events, and the world's
// pipelinetrace.Stream makes each of them a typed event for the narrator
// (lwNarrator) and, on the page, the Recorder.
type narratedLW struct {
	reflector.ListerWatcher // the Stream's tap, around gated
	gated                   *gatedLW
}

// newNarratedLW returns inner behind the gate, tapped by stream.
func newNarratedLW(inner reflector.ListerWatcher, kind string, g *gate, stream *pipelinetrace.Stream) *narratedLW {
	gated := &gatedLW{inner: inner, g: g, id: g.newWatcherID()}
	return &narratedLW{ListerWatcher: stream.ListerWatcher(gated, kind), gated: gated}
}

// streamNarrator narrates a pipelinetrace.Stream: step 1 (lwNarrator)
// and the informers' trace (traceNarrator).
type streamNarrator struct {
	lw    *lwNarrator
	trace *traceNarrator
}

func newStreamNarrator(n *narrator, kinds *kindIndex, syncs *atomic.Int64, dispatch bool) streamNarrator {
	return streamNarrator{
		lw:    &lwNarrator{n: n, seen: map[string]runtime.Object{}},
		trace: &traceNarrator{n: n, kinds: kinds, syncs: syncs, dispatch: dispatch},
	}
}

// event narrates one event of the stream.
func (s streamNarrator) event(e pipelinetrace.Event) {
	if e.What.FromListerWatcher() {
		s.lw.event(e)
		return
	}
	s.trace.trace(e)
}

// lwNarrator narrates step 1: every List, every Watch and every event on a
// watch. In verbose mode it shows what each MODIFIED event changed.
type lwNarrator struct {
	n *narrator

	mu   sync.Mutex                // guards seen
	seen map[string]runtime.Object // verbose mode: the last version of each "kind key"
}

func (l *lwNarrator) say(kind, format string, args ...any) {
	l.n.line(stageReflector, laneOf(kind), tagList, "%s: %s", plural(kind), fmt.Sprintf(format, args...))
}

// plural names a kind's resource as the story says it: "Foos".
func plural(kind string) string {
	if kind == "Foo" || kind == "Deployment" {
		return kind + "s"
	}
	return kind
}

// remember notes, in verbose mode, a delivered object, returning the
// previous version (nil if none).
func (l *lwNarrator) remember(kind string, obj runtime.Object, deleted bool) runtime.Object {
	if !l.n.verbose {
		return nil
	}
	id := kind + " " + pipelineweb.ObjectKey(obj)
	l.mu.Lock()
	defer l.mu.Unlock()
	prev := l.seen[id]
	if deleted {
		delete(l.seen, id)
	} else {
		l.seen[id] = obj
	}
	return prev
}

// event narrates one step 1 event.
func (l *lwNarrator) event(e pipelinetrace.Event) {
	say := func(format string, args ...any) { l.say(e.Kind, format, args...) }
	switch e.What {
	case pipelinetrace.ListFailed:
		say("LIST (resourceVersion=%q) failed: %s", e.RequestRV, errorText(e.Err))
	case pipelinetrace.ListDone:
		for _, item := range e.Items {
			l.remember(e.Kind, item, false)
		}
		say("LIST (resourceVersion=%q) → %d object(s) at rv %s", e.RequestRV, len(e.Items), e.RV)
	case pipelinetrace.WatchRefused:
		say("WATCH from rv %s refused: %s", e.RequestRV, errorText(e.Err))
	case pipelinetrace.WatchOpened:
		say("WATCH from rv %s (the server sends every change after it)", e.RequestRV)
	case pipelinetrace.WatchEnded:
		say("the watch ended (connection closed by the server)")
	case pipelinetrace.WatchEvent:
		switch e.EventType {
		case watch.Error:
			say("watch ERROR event: %s", errorText(e.Err))
		case watch.Bookmark:
			if l.n.verbose {
				say("BOOKMARK rv %s", e.RV)
			}
		default:
			prev := l.remember(e.Kind, e.Object, e.EventType == watch.Deleted)
			say("watch event %s %s rv %s", e.EventType, e.Key, e.RV)
			if prev != nil && e.EventType == watch.Modified {
				if d := diffObjects(prev, e.Object); d != "" {
					l.n.detail(stageReflector, laneOf(e.Kind), "%s", d)
				}
			}
		}
	}
}

// gatedLW passes every List, every Watch and every watch event through the
// gate, and counts the calls.
type gatedLW struct {
	inner reflector.ListerWatcher
	g     *gate
	id    int
	// writes, when set, holds watch events back while a controller write
	// is in flight (live mode), so the write's line prints first.
	writes *writeLog

	lists, watches atomic.Int64 // calls made, for the story's checks
}

func (l *gatedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := l.g.request(ctx, l.id, true); err != nil {
		return nil, err
	}
	l.lists.Add(1)
	return l.inner.List(ctx, opts)
}

func (l *gatedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := l.g.request(ctx, l.id, false); err != nil {
		return nil, err
	}
	l.watches.Add(1)
	w, err := l.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	gw := &gatedWatch{
		lw:      l,
		inner:   w,
		out:     make(chan watch.Event),
		stopped: make(chan struct{}),
		lastRV:  opts.ResourceVersion,
	}
	go gw.pump()
	return gw, nil
}

// gatedWatch forwards the events of one watch through the gate.
type gatedWatch struct {
	lw    *gatedLW
	inner watch.Interface
	out   chan watch.Event

	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop

	lastRV string // only the pump goroutine touches it
}

func (w *gatedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *gatedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

// pump reads the server's events and hands each to the gate; it exits when
// the server's channel closes (after Stop, at the latest).
func (w *gatedWatch) pump() {
	for ev := range w.inner.ResultChan() {
		rv := w.lastRV
		if acc, err := meta.Accessor(ev.Object); err == nil && ev.Type != watch.Error {
			rv = acc.GetResourceVersion()
		}
		w.lastRV = rv
		w.lw.g.add(w.lw.id, rv, func() { w.deliver(ev) })
	}
	w.lw.g.add(w.lw.id, w.lastRV, func() { close(w.out) })
}

func (w *gatedWatch) deliver(ev watch.Event) {
	select {
	case <-w.stopped:
		return
	default:
	}
	if w.lw.writes != nil && !w.lw.g.deterministic() {
		// The event may come from a write whose line is not printed yet:
		// cause before effect. Bounded, should a write go unnarrated.
		select {
		case <-w.lw.writes.idleChan():
		case <-w.stopped:
		case <-time.After(time.Second):
		}
	}
	select {
	case w.out <- ev:
	case <-w.stopped:
	}
}
