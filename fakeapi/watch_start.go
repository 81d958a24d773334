package fakeapi

import (
	"context"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// Where a watch starts:
//
//	resourceVersion ""/"0"          synthetic ADDED for every current object, then live
//	resourceVersion N               replay of every event after N, then live
//	                                (N older than the window: one ERROR 410 Expired, then the end;
//	                                N ahead of the server: silence until N exists, then every
//	                                event after N, like the real server's watch cache)
//	sendInitialEvents=true          ADDED for every current object, then a BOOKMARK annotated
//	  (resourceVersionMatch=        k8s.io/initial-events-end (when bookmarks are allowed),
//	   NotOlderThan required)       then live: the streaming list
//	sendInitialEvents=false         like N above; ""/"0" start live with no initial events

// validateWatchOptions mirrors the real server's validation of a watch.
func validateWatchOptions(opts metav1.ListOptions) error {
	var errs field.ErrorList
	match := opts.ResourceVersionMatch
	p := field.NewPath("resourceVersionMatch")
	if opts.SendInitialEvents != nil && match != metav1.ResourceVersionMatchNotOlderThan {
		errs = append(errs, field.Forbidden(p, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	}
	if match != "" {
		if opts.SendInitialEvents == nil {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(p, match, []string{string(metav1.ResourceVersionMatchNotOlderThan)}))
		}
		if opts.Continue != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	if len(errs) > 0 {
		return errInvalidOptions("ListOptions", errs)
	}
	return nil
}

// watch opens a watch. typed selects typed objects in its events.
func (s *Server) watch(ctx context.Context, r *resource, ns string, opts metav1.ListOptions, typed bool) (*watcher, error) {
	sel, err := newSelector(r, ns, opts, s.opts.IgnoreShardSelector)
	if err != nil {
		return nil, err
	}
	if err := validateWatchOptions(opts); err != nil {
		return nil, err
	}
	var n uint64
	numeric := opts.ResourceVersion != "" && opts.ResourceVersion != "0"
	if numeric {
		if n, err = parseRV(opts.ResourceVersion); err != nil {
			return nil, err
		}
	}
	w := &watcher{
		s:         s,
		sel:       sel,
		typed:     typed,
		bookmarks: opts.AllowWatchBookmarks,
		out:       make(chan watch.Event),
		done:      make(chan struct{}),
		wake:      make(chan struct{}, 1),
	}
	if opts.TimeoutSeconds != nil {
		// Computed as the real server computes it, overflow included: a
		// negative timeout (timeoutSeconds=-1, or one too large for a
		// time.Duration that wraps around) ends the watch at once, before
		// any event. 0 means no timeout here; over HTTP it means the
		// server's default (serveWatch).
		w.timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, errClosed()
	}
	w.seenRV = s.rv
	switch {
	case opts.SendInitialEvents != nil && *opts.SendInitialEvents:
		if numeric && n > s.rv {
			// A streaming list must start from a state the server has: the
			// real server waits briefly for it, then answers 504.
			return s.startLocked(ctx, w, errorItem(errTooLarge(n, s.rv)), false), nil
		}
		w.queue = s.initialEventsLocked(sel)
		if opts.AllowWatchBookmarks {
			w.queue = append(w.queue, watchItem{typ: watch.Bookmark, rv: s.rv, initialEnd: true})
		}
	case !numeric && opts.SendInitialEvents == nil:
		w.queue = s.initialEventsLocked(sel)
	case !numeric:
		// sendInitialEvents=false with ""/"0": start live.
	case n < s.compactedRV:
		return s.startLocked(ctx, w, errorItem(errTooOld(n, s.compactedRV+1)), false), nil
	case n > s.rv:
		// A plain watch from a version the server has not reached: it
		// stays open and silent until that version exists, then sends what
		// comes after it.
		w.after = n
	default:
		for _, ev := range s.history {
			if ev.rv <= n || ev.silent || ev.res != r {
				continue
			}
			if it, ok := w.translate(ev); ok {
				w.queue = append(w.queue, it)
			}
		}
	}
	return s.startLocked(ctx, w, nil, true), nil
}

func errorItem(err error) *watchItem {
	st := statusOf(err)
	return &watchItem{typ: watch.Error, status: &st, last: true}
}

// startLocked starts w's goroutine. A watch that only reports an error gets
// that one item and is not registered for live events.
func (s *Server) startLocked(ctx context.Context, w *watcher, only *watchItem, live bool) *watcher {
	if only != nil {
		w.queue = []watchItem{*only}
	}
	w.limit = s.opts.WatchBufferSize + len(w.queue)
	if live {
		s.watchers[w] = struct{}{}
	}
	s.wg.Add(1)
	go w.run(ctx)
	return w
}

// initialEventsLocked returns ADDED events for the current objects matching
// sel, in key order like the real watch cache.
func (s *Server) initialEventsLocked(sel selector) []watchItem {
	r := sel.res
	keys := make([]string, 0, len(r.items))
	for k, o := range r.items {
		if sel.matches(o) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := make([]watchItem, 0, len(keys))
	for _, k := range keys {
		items = append(items, watchItem{typ: watch.Added, obj: r.items[k]})
	}
	return items
}
