package reflector

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// watchList is the watch-listing state, used with Options.UseWatchList: the
// initial state arrives as a watch instead of a List.
//
//  1. Open a watch with sendInitialEvents=true, resourceVersionMatch=
//     NotOlderThan and bookmarks, from the last seen resourceVersion ("" the
//     first time, or once it is unavailable: the newest state).
//  2. The server sends every current object as an Added event, then a
//     bookmark annotated k8s.io/initial-events-end: "true" carrying the
//     snapshot's resourceVersion. Collect the objects until that bookmark.
//  3. Store.Replace(objects, bookmarkRV), then keep the same stream open: it
//     becomes the watch.
//
// The server never has to build the whole list in memory at once, which is the
// point. Failures: 429 and connection refused back off and retry; 410 or a too
// large resourceVersion retries once, at once, from ""; anything else —
// including a server that does not know sendInitialEvents, and a stream that
// ends or goes silent before the bookmark — falls back to a plain list,
// because making progress matters more than the cheaper path.
func (r *Reflector) watchList(ctx context.Context, c *cycle) transition {
	r.widenFrom, r.replay = nil, nil // a streaming list always sends the whole shard
	r.listedShard = r.currentShard()
	if err := r.listedShard.parseErr(); err != nil {
		return transition{to: stateRelistBackoff, cause: err.Error(), err: err}
	}
	rv := r.rewatchResourceVersion()
	timeout := r.watchTimeoutSeconds()
	sendInitialEvents := true
	opts := metav1.ListOptions{
		ShardSelector:        r.listedShard.expr,
		LabelSelector:        r.listedShard.label,
		ResourceVersion:      rv,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &sendInitialEvents,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       &timeout,
	}
	w, err := r.openWatch(ctx, opts)
	if w != nil && (err != nil || ctx.Err() != nil) {
		w.Stop() // a watch returned alongside an error is never used
	}
	if ctx.Err() != nil {
		return transition{to: stateStopped, cause: "context cancelled while opening a streaming list"}
	}
	if err == nil && w == nil {
		err = errors.New("reflector: ListerWatcher returned a nil watch")
	}
	if err != nil {
		return r.afterWatchListFailure(err, rv, c)
	}

	items, endRV, err := r.collectInitialEvents(ctx, w)
	if err != nil {
		w.Stop()
		if errors.Is(err, errStopRequested) {
			return transition{to: stateStopped, cause: "context cancelled while streaming the list"}
		}
		return r.afterWatchListFailure(err, rv, c)
	}
	r.setResourceVersionUnavailable(false)
	items = r.filterSelected(items)

	// Step 2 (add objects): the streamed snapshot replaces what the Store holds.
	if err := r.store.Replace(items, endRV); err != nil {
		w.Stop()
		return r.afterWatchListFailure(fmt.Errorf("reflector: unable to sync streamed list: %w", err), rv, c)
	}
	r.setLastSyncResourceVersion(endRV)
	c.handoff = w
	return transition{to: stateWatching,
		cause: fmt.Sprintf("streamed %d objects up to resourceVersion %q; the stream goes on as the watch", len(items), endRV)}
}

// afterWatchListFailure maps a failed streaming list to the next state.
func (r *Reflector) afterWatchListFailure(err error, rv string, c *cycle) transition {
	switch {
	case isRetriableWatchError(err):
		return transition{to: stateRewatchBackoff, resume: stateWatchListing,
			cause: fmt.Sprintf("streaming list refused: %v", err)}
	case isResourceVersionUnavailable(err) && !c.watchListRetried:
		c.watchListRetried = true
		r.setResourceVersionUnavailable(true)
		return transition{to: stateWatchListing,
			cause: fmt.Sprintf("streaming list at resourceVersion %q: %v; retrying at \"\"", rv, err)}
	default:
		r.logger.Warn("reflector: streaming list failed; falling back to a list", "err", err)
		return transition{to: stateListing, cause: fmt.Sprintf("streaming list failed: %v; falling back to a list", err)}
	}
}

// collectInitialEvents reads w until the initial-events-end bookmark and
// returns the objects it describes, in the order they first appeared, and the
// bookmark's resourceVersion. It does not stop w.
func (r *Reflector) collectInitialEvents(ctx context.Context, w watch.Interface) ([]any, string, error) {
	idle := newIdleTimer(r.opts.IdleTimeout)
	defer idle.stop()
	var snap snapshot
	for {
		select {
		case <-ctx.Done():
			return nil, "", errStopRequested
		case <-idle.c():
			return nil, "", errIdleTimeout
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, "", errNoInitialEventsEnd
			}
			idle.reset()
			if ev.Type == watch.Error {
				return nil, "", apierrors.FromObject(ev.Object)
			}
			rv, ok := r.accept(ev)
			if !ok {
				continue
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				snap.set(ev.Object)
			case watch.Deleted:
				snap.delete(ev.Object)
			case watch.Bookmark:
				m, _ := meta.Accessor(ev.Object) // accept checked it
				if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
					return snap.list(), rv, nil
				}
			}
		}
	}
}

// snapshot is the temporary store of a streaming list: objects by
// namespace/name, in the order they first appeared.
type snapshot struct {
	keys []string
	objs map[string]runtime.Object // a key deleted again is absent here
}

func snapshotKey(obj runtime.Object) string {
	m, _ := meta.Accessor(obj) // accept checked it
	return m.GetNamespace() + "/" + m.GetName()
}

func (s *snapshot) set(obj runtime.Object) {
	if s.objs == nil {
		s.objs = make(map[string]runtime.Object)
	}
	k := snapshotKey(obj)
	if _, seen := s.objs[k]; !seen {
		s.keys = append(s.keys, k)
	}
	s.objs[k] = obj
}

func (s *snapshot) delete(obj runtime.Object) {
	delete(s.objs, snapshotKey(obj))
}

func (s *snapshot) list() []any {
	out := make([]any, 0, len(s.objs))
	seen := make(map[string]bool, len(s.objs))
	for _, k := range s.keys {
		if o, ok := s.objs[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, o)
		}
	}
	return out
}
