package demoengine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/internal/pipelineweb"
	"github.com/informerlab/informerlab/reflector"
)

// narratedLW wraps a ListerWatcher to narrate step 1: every List, every
// Watch and every event on a watch. All of it goes through the gate. It
// tells kinds which keys it delivered, and in verbose mode shows what each
// MODIFIED event changed.
type narratedLW struct {
	inner reflector.ListerWatcher
	kind  string // Foo, Deployment, configmaps
	n     *narrator
	g     *gate
	id    int
	kinds *kindIndex
	// writes, when set, holds watch events back while a controller write
	// is in flight (live mode), so the write's line prints first.
	writes *writeLog

	lists, watches atomic.Int64 // calls made, for the story's checks

	mu   sync.Mutex                // guards seen
	seen map[string]runtime.Object // verbose mode: the last version of each key
}

func newNarratedLW(inner reflector.ListerWatcher, kind string, n *narrator, g *gate, kinds *kindIndex) *narratedLW {
	return &narratedLW{inner: inner, kind: kind, n: n, g: g, id: g.newWatcherID(), kinds: kinds, seen: map[string]runtime.Object{}}
}

func (l *narratedLW) say(format string, args ...any) {
	l.n.line(stageReflector, laneOf(l.kind), tagList, "%s: %s", plural(l.kind), fmt.Sprintf(format, args...))
}

// plural names a kind's resource as the story says it: "Foos".
func plural(kind string) string {
	if kind == "Foo" || kind == "Deployment" {
		return kind + "s"
	}
	return kind
}

// remember notes a delivered object: its kind, and in verbose mode the
// object itself, returning the previous version (nil if none).
func (l *narratedLW) remember(obj runtime.Object, deleted bool) runtime.Object {
	key := pipelineweb.ObjectKey(obj)
	l.kinds.saw(l.kind, key)
	if !l.n.verbose {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	prev := l.seen[key]
	if deleted {
		delete(l.seen, key)
	} else {
		l.seen[key] = obj
	}
	return prev
}

func (l *narratedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := l.g.request(ctx, l.id, true); err != nil {
		return nil, err
	}
	l.lists.Add(1)
	obj, err := l.inner.List(ctx, opts)
	if err != nil {
		l.say("LIST (resourceVersion=%q) failed: %s", opts.ResourceVersion, errorText(err))
		return nil, err
	}
	items, _ := meta.ExtractList(obj)
	rv := ""
	if lm, err := meta.ListAccessor(obj); err == nil {
		rv = lm.GetResourceVersion()
	}
	for _, item := range items {
		l.remember(item, false)
	}
	l.kinds.listed(l.kind, len(items), rv)
	l.say("LIST (resourceVersion=%q) → %d object(s) at rv %s", opts.ResourceVersion, len(items), rv)
	return obj, nil
}

func (l *narratedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := l.g.request(ctx, l.id, false); err != nil {
		return nil, err
	}
	l.watches.Add(1)
	w, err := l.inner.Watch(ctx, opts)
	if err != nil {
		l.say("WATCH from rv %s refused: %s", opts.ResourceVersion, errorText(err))
		return nil, err
	}
	l.say("WATCH from rv %s (the server sends every change after it)", opts.ResourceVersion)
	nw := &narratedWatch{
		lw:      l,
		ctx:     ctx,
		inner:   w,
		out:     make(chan watch.Event),
		stopped: make(chan struct{}),
		lastRV:  opts.ResourceVersion,
	}
	go nw.pump()
	return nw, nil
}

// narratedWatch forwards the events of one watch through the gate.
type narratedWatch struct {
	lw *narratedLW
	// ctx is the Watch call's: when it ends (Ctrl-C, the informer
	// stopping), the watch ends because we ended it, not the server.
	ctx   context.Context
	inner watch.Interface
	out   chan watch.Event

	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop

	lastRV string // only the pump goroutine touches it
}

func (w *narratedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *narratedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

// pump reads the server's events and hands each to the gate; it exits when
// the server's channel closes (after Stop, at the latest).
func (w *narratedWatch) pump() {
	for ev := range w.inner.ResultChan() {
		rv := w.lastRV
		if acc, err := meta.Accessor(ev.Object); err == nil && ev.Type != watch.Error {
			rv = acc.GetResourceVersion()
		}
		w.lastRV = rv
		w.lw.g.add(w.lw.id, rv, func() { w.deliver(ev) })
	}
	w.lw.g.add(w.lw.id, w.lastRV, func() {
		// A watch we stopped (Stop, or the end of the Watch call's
		// context, which the server's stream may notice first) needs no
		// word; only one the server ended does.
		if !w.stoppedByUs() {
			w.lw.say("the watch ended (connection closed by the server)")
		}
		close(w.out)
	})
}

// stoppedByUs reports whether the watch was stopped from this side: by
// Stop, or by the end of the context of the Watch call.
func (w *narratedWatch) stoppedByUs() bool {
	select {
	case <-w.stopped:
		return true
	case <-w.ctx.Done():
		return true
	default:
		return false
	}
}

func (w *narratedWatch) deliver(ev watch.Event) {
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
	switch ev.Type {
	case watch.Error:
		w.lw.say("watch ERROR event: %s", errorText(apierrors.FromObject(ev.Object)))
	case watch.Bookmark:
		if w.lw.n.verbose {
			w.lw.say("BOOKMARK rv %s", pipelineweb.ObjectRV(ev.Object))
		}
	default:
		prev := w.lw.remember(ev.Object, ev.Type == watch.Deleted)
		w.lw.say("watch event %s %s rv %s", ev.Type, pipelineweb.ObjectKey(ev.Object), pipelineweb.ObjectRV(ev.Object))
		if prev != nil && ev.Type == watch.Modified {
			if d := diffObjects(prev, ev.Object); d != "" {
				w.lw.n.detail(stageReflector, laneOf(w.lw.kind), "%s", d)
			}
		}
	}
	select {
	case w.out <- ev:
	case <-w.stopped:
	}
}
