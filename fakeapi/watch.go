package fakeapi

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// A watch is a bounded queue filled by writers and drained by one goroutine
// (run) that sends to the client's channel:
//
//	writer --offerLocked--> queue (bounded) --run--> ResultChan --> client
//
// Writers never block: when a watch's queue is full the server cuts the
// watch off (ends it), like the real apiserver does to a watcher that cannot
// keep up; the client must re-watch (or relist). run also produces periodic
// bookmarks, ends the watch at timeoutSeconds, and stops on Stop, on the
// caller's context, on the faults that end watches, and on Server.Close.

// watchItem is one queued event.
type watchItem struct {
	typ watch.EventType
	// obj is a stored object (read-only). For a DELETED produced by an object
	// leaving the selector, rv overrides its resourceVersion.
	obj    *unstructured.Unstructured
	rv     uint64
	status *metav1.Status // for watch.Error
	// initialEnd marks the bookmark that ends a streaming list's initial events.
	initialEnd bool
	// last ends the watch after this item is delivered.
	last bool
}

// watcher is one open watch. It implements watch.Interface.
//
// Invariant: queue holds at most limit items, except for items that end the
// watch (injected errors), which bypass the limit.
type watcher struct {
	s         *Server
	sel       selector
	typed     bool
	bookmarks bool
	timeout   time.Duration
	// after is the resourceVersion a watch from ahead of the server waits
	// for: events and bookmarks at or before it are not sent (0 for other
	// watches). Set before the watch starts; never changed.
	after   uint64
	out     chan watch.Event
	done    chan struct{} // closed by end: the watch must stop
	endOnce sync.Once
	wake    chan struct{} // capacity 1: "the queue or the hang state changed"

	mu    sync.Mutex // guards queue, limit, seenRV and overflowed
	queue []watchItem
	limit int
	// seenRV: every event up to seenRV has been queued or filtered out; a
	// bookmark sent when the queue is empty carries it.
	seenRV uint64
	// overflowed is set when the queue filled up while watches were hung; the
	// watch is cut off when the hang ends.
	overflowed bool
}

var _ watch.Interface = (*watcher)(nil)

// ResultChan returns the event channel; it is closed when the watch ends.
func (w *watcher) ResultChan() <-chan watch.Event { return w.out }

// Stop ends the watch. It is idempotent and safe to call concurrently.
func (w *watcher) Stop() { w.end() }

func (w *watcher) end() { w.endOnce.Do(func() { close(w.done) }) }

func (w *watcher) ended() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// translate turns a committed event into what this watch sees: nothing, or
// one event. An object moving into the selector is ADDED, one moving out is
// DELETED (its previous state, stamped with the change's resourceVersion).
func (w *watcher) translate(ev event) (watchItem, bool) {
	switch ev.typ {
	case added:
		if w.sel.matches(ev.obj) {
			return watchItem{typ: watch.Added, obj: ev.obj}, true
		}
	case deleted:
		if w.sel.matches(ev.obj) {
			return watchItem{typ: watch.Deleted, obj: ev.obj}, true
		}
	case modified:
		cur, prev := w.sel.matches(ev.obj), w.sel.matches(ev.prev)
		switch {
		case cur && prev:
			return watchItem{typ: watch.Modified, obj: ev.obj}, true
		case cur:
			return watchItem{typ: watch.Added, obj: ev.obj}, true
		case prev:
			return watchItem{typ: watch.Deleted, obj: ev.prev, rv: ev.rv}, true
		}
	}
	return watchItem{}, false
}

// offerLocked hands a committed event to a watch without ever blocking.
// Called with s.mu held.
func (s *Server) offerLocked(w *watcher, ev event) {
	if w.ended() || w.sel.res != ev.res {
		w.mu.Lock()
		w.seenRV = ev.rv
		w.mu.Unlock()
		return
	}
	it, ok := w.translate(ev)
	w.mu.Lock()
	w.seenRV = ev.rv
	if !ok || w.overflowed || ev.rv <= w.after {
		w.mu.Unlock()
		return
	}
	if len(w.queue) >= w.limit {
		if s.hung.Load() {
			w.overflowed = true
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		s.cutOffLocked(w)
		return
	}
	w.queue = append(w.queue, it)
	w.mu.Unlock()
	w.signal()
}

// cutOffLocked ends a watch that could not keep up.
func (s *Server) cutOffLocked(w *watcher) {
	w.end()
	s.faults.WatchesCutOff++
	s.logger.Warn("fakeapi: slow watch cut off", "resource", w.sel.res.info.GVR.Resource, "buffer", s.opts.WatchBufferSize)
}

// pushEnd queues an item that ends the watch, bypassing the limit.
func (w *watcher) pushEnd(it watchItem) {
	it.last = true
	w.mu.Lock()
	w.queue = append(w.queue, it)
	w.mu.Unlock()
	w.signal()
}

// pop takes the next item, reporting whether there was one.
func (w *watcher) pop() (watchItem, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return watchItem{}, false
	}
	it := w.queue[0]
	w.queue[0] = watchItem{}
	w.queue = w.queue[1:]
	return it, true
}

// bookmarkRV returns the resourceVersion for a periodic bookmark, or false
// when one should not be sent now (events are still queued, nothing has
// happened yet, or the server has not reached the version the watch
// started from).
func (w *watcher) bookmarkRV() (uint64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seenRV, len(w.queue) == 0 && w.seenRV > initialRV && w.seenRV >= w.after
}

// run delivers the queue to out until the watch ends. It is the watch's only
// goroutine and the only sender on (and closer of) out.
func (w *watcher) run(ctx context.Context) {
	defer w.s.wg.Done()
	defer close(w.out)
	defer w.s.removeWatcher(w)
	if w.timeout < 0 {
		return // its time was up before it began
	}
	var timeout <-chan time.Time
	if w.timeout > 0 {
		t := time.NewTimer(w.timeout)
		defer t.Stop()
		timeout = t.C
	}
	var tick <-chan time.Time
	if w.bookmarks && w.s.opts.BookmarkInterval > 0 {
		t := time.NewTicker(w.s.opts.BookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	timedOut := false
	for {
		hung := w.s.hung.Load()
		if !hung {
			if w.ended() {
				return
			}
			if it, ok := w.pop(); ok {
				if !w.send(ctx, w.convert(it)) || it.last {
					return
				}
				continue
			}
			if timedOut {
				return // a timeout that fired during a hang, once the queue is delivered
			}
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		case <-ctx.Done():
			return
		case <-w.s.closed:
			return
		case <-timeout:
			if !w.s.hung.Load() {
				return
			}
			// A hung watch ignores its timeout, as a stuck connection would;
			// the timeout applies once the hang ends.
			timedOut, timeout = true, nil
		case <-tick:
			if rv, ok := w.bookmarkRV(); ok && !w.s.hung.Load() {
				if !w.send(ctx, w.convert(watchItem{typ: watch.Bookmark, rv: rv})) {
					return
				}
			}
		}
	}
}

func (w *watcher) send(ctx context.Context, ev watch.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.done:
	case <-ctx.Done():
	case <-w.s.closed:
	}
	return false
}

// convert builds the client's copy of an item.
func (w *watcher) convert(it watchItem) watch.Event {
	r := w.sel.res
	switch it.typ {
	case watch.Error:
		st := *it.status
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return watch.Event{Type: watch.Error, Object: &st}
	case watch.Bookmark:
		var ann map[string]string
		if it.initialEnd {
			ann = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
		}
		return w.event(watch.Bookmark, bookmarkObject(r, it.rv, ann))
	}
	obj := it.obj
	if it.rv != 0 {
		obj = obj.DeepCopy()
		obj.SetResourceVersion(formatRV(it.rv))
	}
	return w.event(it.typ, obj)
}

func (w *watcher) event(typ watch.EventType, obj *unstructured.Unstructured) watch.Event {
	out, err := w.s.output(w.sel.res, obj, w.typed)
	if err != nil {
		st := statusOf(err)
		return watch.Event{Type: watch.Error, Object: &st}
	}
	return watch.Event{Type: typ, Object: out}
}

func (s *Server) removeWatcher(w *watcher) {
	s.mu.Lock()
	delete(s.watchers, w)
	s.mu.Unlock()
}
