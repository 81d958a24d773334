package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// narratedLW wraps a ListerWatcher to narrate step 1: every List, every
// Watch and every event on a watch. All of it goes through the gate.
type narratedLW struct {
	inner  reflector.ListerWatcher
	plural string // Foos, Deployments, configmaps
	n      *narrator
	g      *gate
	id     int
	quiet  bool // a helper's informer: narrated in verbose mode only

	lists, watches atomic.Int64 // calls made, for the story's checks
}

func newNarratedLW(inner reflector.ListerWatcher, plural string, n *narrator, g *gate, quiet bool) *narratedLW {
	return &narratedLW{inner: inner, plural: plural, n: n, g: g, id: g.newWatcherID(), quiet: quiet}
}

func (l *narratedLW) say(format string, args ...any) {
	if l.quiet && !l.n.verbose {
		return
	}
	who := l.plural
	if l.quiet {
		who += " (simulator's informer)"
	}
	l.n.step(tagList, "%s: %s", who, fmt.Sprintf(format, args...))
}

func (l *narratedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := l.g.request(ctx, l.id); err != nil {
		return nil, err
	}
	l.lists.Add(1)
	obj, err := l.inner.List(ctx, opts)
	if err != nil {
		l.say("LIST (resourceVersion=%q) failed: %s", opts.ResourceVersion, errorSummary(err))
		return nil, err
	}
	items, _ := meta.ExtractList(obj)
	rv := ""
	if lm, err := meta.ListAccessor(obj); err == nil {
		rv = lm.GetResourceVersion()
	}
	l.say("LIST (resourceVersion=%q) → %d object(s) at rv %s", opts.ResourceVersion, len(items), rv)
	return obj, nil
}

func (l *narratedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := l.g.request(ctx, l.id); err != nil {
		return nil, err
	}
	l.watches.Add(1)
	w, err := l.inner.Watch(ctx, opts)
	if err != nil {
		l.say("WATCH from rv %s refused: %s", opts.ResourceVersion, errorSummary(err))
		return nil, err
	}
	l.say("WATCH from rv %s (the server sends every change after it)", opts.ResourceVersion)
	nw := &narratedWatch{
		lw:      l,
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
	lw    *narratedLW
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
		select {
		case <-w.stopped:
		default:
			w.lw.say("the watch ended (connection closed by the server)")
		}
		close(w.out)
	})
}

func (w *narratedWatch) deliver(ev watch.Event) {
	select {
	case <-w.stopped:
		return
	default:
	}
	switch ev.Type {
	case watch.Error:
		w.lw.say("watch ERROR event: %s", errorSummary(apierrors.FromObject(ev.Object)))
	case watch.Bookmark:
		if w.lw.n.verbose {
			w.lw.say("BOOKMARK rv %s", objectRV(ev.Object))
		}
	default:
		w.lw.say("watch event %s %s rv %s", ev.Type, objectKey(ev.Object), objectRV(ev.Object))
	}
	select {
	case w.out <- ev:
	case <-w.stopped:
	}
}

func objectKey(obj any) string {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return "<unknown>"
	}
	if acc.GetNamespace() == "" {
		return acc.GetName()
	}
	return acc.GetNamespace() + "/" + acc.GetName()
}

func objectRV(obj any) string {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return "?"
	}
	return acc.GetResourceVersion()
}

// errorSummary renders an API error as "410 Expired: message".
func errorSummary(err error) string {
	var se apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		se = s
	}
	if se == nil {
		return err.Error()
	}
	st := se.Status()
	return fmt.Sprintf("%d %s", st.Code, st.Reason)
}
