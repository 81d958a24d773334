package pipelinetrace

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/reflector"
)

// The ListerWatchers' events (step 1), made by [Stream.ListerWatcher].
// Each carries Kind, the kind the informer lists and watches, and
// RequestRV, the resourceVersion the Reflector asked from.
const (
	// ListDone is a LIST's answer: Items at RV. It and the kinds after it
	// are the ListerWatchers' (FromListerWatcher).
	ListDone What = iota + 100
	// ListFailed is a LIST's error (Err).
	ListFailed
	// WatchOpened is a WATCH the server accepted.
	WatchOpened
	// WatchRefused is a WATCH the server refused (Err).
	WatchRefused
	// WatchEvent is one watch event on its way to the Reflector:
	// EventType, and Object (Key and RV its own) or, for an ERROR event,
	// Err.
	WatchEvent
	// WatchEnded is a watch the server ended (not one the Reflector
	// stopped); RV is the last resourceVersion it delivered.
	WatchEnded
)

type tappedLW struct {
	inner reflector.ListerWatcher
	kind  string
	emit  func(Event)
}

func (l *tappedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := l.inner.List(ctx, opts)
	if err != nil {
		l.emit(Event{What: ListFailed, Kind: l.kind, RequestRV: opts.ResourceVersion, Err: err})
		return nil, err
	}
	items, _ := meta.ExtractList(obj)
	rv := ""
	if lm, err := meta.ListAccessor(obj); err == nil {
		rv = lm.GetResourceVersion()
	}
	l.emit(Event{What: ListDone, Kind: l.kind, RequestRV: opts.ResourceVersion, RV: rv, Items: items, Objects: len(items)})
	return obj, nil
}

func (l *tappedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.inner.Watch(ctx, opts)
	if err != nil {
		l.emit(Event{What: WatchRefused, Kind: l.kind, RequestRV: opts.ResourceVersion, Err: err})
		return nil, err
	}
	l.emit(Event{What: WatchOpened, Kind: l.kind, RequestRV: opts.ResourceVersion})
	tw := &tappedWatch{l: l, ctx: ctx, inner: w, out: make(chan watch.Event), stopped: make(chan struct{}), lastRV: opts.ResourceVersion}
	go tw.pump()
	return tw, nil
}

// tappedWatch forwards one watch's events, each after its Event.
type tappedWatch struct {
	l *tappedLW
	// ctx is the Watch call's: when it ends (the informer stopping), the
	// watch ends because this side ended it, not the server.
	ctx   context.Context
	inner watch.Interface
	out   chan watch.Event

	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop

	lastRV string // only pump touches it
}

func (w *tappedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *tappedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

// pump emits and forwards each event; it ends when the inner watch's
// channel closes (after Stop, at the latest).
func (w *tappedWatch) pump() {
	defer close(w.out)
	for ev := range w.inner.ResultChan() {
		select {
		case <-w.stopped:
			continue // drain: the Reflector no longer reads
		default:
		}
		e := Event{What: WatchEvent, Kind: w.l.kind, EventType: ev.Type, Object: ev.Object}
		if ev.Type == watch.Error {
			e.Err = apierrors.FromObject(ev.Object)
		} else {
			e.Key, e.RV = objectKey(ev.Object), objectRV(ev.Object)
			if ev.Type != watch.Bookmark || e.RV != "?" {
				w.lastRV = e.RV
			}
		}
		w.l.emit(e)
		select {
		case w.out <- ev:
		case <-w.stopped:
		}
	}
	if !w.stoppedByUs() {
		w.l.emit(Event{What: WatchEnded, Kind: w.l.kind, RV: w.lastRV})
	}
}

// stoppedByUs reports whether the watch was stopped from this side: by
// Stop, or by the end of the context of the Watch call.
func (w *tappedWatch) stoppedByUs() bool {
	select {
	case <-w.stopped:
		return true
	case <-w.ctx.Done():
		return true
	default:
		return false
	}
}

// objectKey is obj's namespace/name, or "<unknown>" for something that is
// not an object.
func objectKey(obj any) string {
	key, err := indexer.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return "<unknown>"
	}
	return key
}

// objectRV is obj's resourceVersion, or "?" for something that is not an
// object.
func objectRV(obj any) string {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return "?"
	}
	return acc.GetResourceVersion()
}

// FromListerWatcher reports whether w is one of the ListerWatchers' kinds
// of Event (step 1), not the trace's.
func (w What) FromListerWatcher() bool { return w >= ListDone }
