package reflector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// watch is the watching state (diagram step 1, then step 2 per event): open a
// watch from the last seen resourceVersion (or continue a streaming list's
// stream), apply its events to the Store until it ends, and decide from how it
// ended what comes next (afterWatch).
func (r *Reflector) watch(ctx context.Context, c *cycle) transition {
	// The clock starts before the request: a proxy may hold the response
	// headers until the first event.
	start := time.Now()
	startRV := r.LastSyncResourceVersion()
	w := c.handoff
	c.handoff = nil
	if r.shardStale() {
		if w != nil {
			w.Stop()
		}
		return r.afterWatch(errSelectorChanged, c)
	}
	if w == nil {
		timeout := r.watchTimeoutSeconds()
		opts := metav1.ListOptions{
			ResourceVersion:     startRV,
			TimeoutSeconds:      &timeout,
			AllowWatchBookmarks: true,
			ShardSelector:       r.listedShard.expr,
			LabelSelector:       r.listedShard.label,
		}
		var err error
		w, err = r.openWatch(ctx, opts)
		if w != nil && (err != nil || ctx.Err() != nil) {
			w.Stop() // a watch returned alongside an error is never used
		}
		switch {
		case ctx.Err() != nil:
			return transition{to: stateStopped, cause: "context cancelled while opening a watch"}
		case errors.Is(err, errNoAnswer):
			r.logger.Info("reflector: watch request got no answer; re-watching",
				"idleTimeout", r.opts.IdleTimeout, "resourceVersion", startRV)
			return transition{to: stateWatching,
				cause: fmt.Sprintf("the watch request got no answer within %v; re-watching from resourceVersion %q", r.opts.IdleTimeout, startRV)}
		case err != nil && isRetriableWatchError(err):
			return transition{to: stateRewatchBackoff, resume: stateWatching,
				cause: fmt.Sprintf("watch refused: %v", err)}
		case err != nil:
			err = fmt.Errorf("reflector: failed to watch %s: %w", r.typeDescription, err)
			return transition{to: stateRelistBackoff, cause: err.Error(), err: err}
		case w == nil:
			err = errors.New("reflector: ListerWatcher returned a nil watch")
			return transition{to: stateRelistBackoff, cause: err.Error(), err: err}
		}
	}
	err := r.handleWatch(ctx, w, start, startRV, c.resyncErr)
	c.internalErrors.after(err, time.Now())
	return r.afterWatch(err, c)
}

// afterWatch maps how a watch ended to the next state. This is the heart of
// the error taxonomy (errors.go, docs/reflector.md).
func (r *Reflector) afterWatch(err error, c *cycle) transition {
	rv := r.LastSyncResourceVersion()
	switch {
	case err == nil:
		return transition{to: stateWatching,
			cause: fmt.Sprintf("watch ended; re-watching from resourceVersion %q", rv)}
	case errors.Is(err, errStopRequested):
		return transition{to: stateStopped, cause: "context cancelled while watching"}
	case errors.Is(err, errSelectorChanged):
		r.relistAtOnce = true
		held := r.listedShard
		r.widenFrom = &held
		cur := r.currentShard()
		return transition{to: stateRelistBackoff,
			cause: fmt.Sprintf("selector changed to shard %q, labels %q; relisting at once", cur.expr, cur.label)}
	case errors.Is(err, errIdleTimeout):
		r.logger.Info("reflector: watch silent for too long; re-watching",
			"idleTimeout", r.opts.IdleTimeout, "resourceVersion", rv)
		return transition{to: stateWatching,
			cause: fmt.Sprintf("nothing arrived for %v; re-watching from resourceVersion %q", r.opts.IdleTimeout, rv)}
	case isExpiredError(err):
		// Not marked unavailable: a list at rv returns something at least as
		// new as rv, and may well succeed; only if it fails does the
		// Reflector fall back to "".
		r.logger.Debug("reflector: watch expired; relisting", "err", err)
		return transition{to: stateRelistBackoff, cause: fmt.Sprintf("watch ended: %v", err)}
	case apierrors.IsTooManyRequests(err):
		return transition{to: stateRewatchBackoff, resume: stateWatching,
			cause: fmt.Sprintf("watch ended: %v", err)}
	case apierrors.IsInternalError(err) && c.internalErrors.shouldRetry(time.Now()):
		r.logger.Info("reflector: watch ended with an internal error; re-watching at once",
			"err", err, "maxInternalErrorRetryDuration", r.opts.MaxInternalErrorRetryDuration)
		return transition{to: stateWatching,
			cause: fmt.Sprintf("watch ended with an internal error within MaxInternalErrorRetryDuration; re-watching from resourceVersion %q", rv)}
	default:
		r.logger.Warn("reflector: watch ended with an error; relisting", "err", err)
		return transition{to: stateRelistBackoff, cause: fmt.Sprintf("watch ended: %v", err)}
	}
}

// handleWatch applies w's events to the Store until w ends, ctx is cancelled,
// a resync fails or nothing arrives for IdleTimeout. It always stops w.
//
// It returns nil when the server closed the stream normally, and otherwise
// the reason the watch ended: an apierrors status for an ERROR event,
// errStopRequested, errIdleTimeout, errVeryShortWatch or the resync error.
func (r *Reflector) handleWatch(ctx context.Context, w watch.Interface, start time.Time, startRV string, resyncErr <-chan error) error {
	defer w.Stop()

	idle := newIdleTimer(r.opts.IdleTimeout)
	defer idle.stop()

	// A watch from "" or "0" first sends the current state as synthetic Added
	// events, in no particular resourceVersion order; their resourceVersions
	// are recorded only from the first event that is not such an Added one.
	record := startRV != "" && startRV != "0"
	events := 0
	for {
		select {
		case <-ctx.Done():
			return errStopRequested
		case err := <-resyncErr:
			return fmt.Errorf("reflector: resync failed: %w", err)
		case <-idle.c():
			return errIdleTimeout
		case <-r.shardChanged:
			if r.shardStale() {
				return errSelectorChanged
			}
		case ev, ok := <-w.ResultChan():
			if !ok {
				if events == 0 && time.Since(start) < time.Second {
					return errVeryShortWatch
				}
				return nil
			}
			idle.reset()
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			rv, ok := r.accept(ev)
			if !ok {
				continue
			}
			replayed := r.replayed(ev, rv) // already in the Store, newer, from a widening's list
			if ev, ok := r.selectEvent(ev); ok && !replayed {
				r.apply(ev)
			}
			if !record && ev.Type != watch.Added {
				record = true
			}
			if record {
				r.setLastSyncResourceVersion(rv)
			}
			events++
		}
	}
}

// accept checks a watch event before it reaches the Store: a known event type,
// an object of the expected Go type (and GroupVersionKind, for Unstructured),
// with object metadata. It returns the object's resourceVersion. Anything else
// is logged and skipped: one odd event must not stop the stream.
func (r *Reflector) accept(ev watch.Event) (string, bool) {
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
	default:
		r.logger.Error("reflector: skipping watch event of unknown type", "eventType", string(ev.Type))
		return "", false
	}
	if v := reflect.ValueOf(ev.Object); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		r.logger.Error("reflector: skipping watch event without an object", "eventType", string(ev.Type))
		return "", false
	}
	if r.expectedType != nil {
		if got := reflect.TypeOf(ev.Object); got != r.expectedType {
			r.logger.Error("reflector: skipping watch event of the wrong type",
				"eventType", string(ev.Type), "want", r.expectedType.String(), "got", got.String())
			return "", false
		}
	}
	if r.expectedGVK != nil {
		if got := ev.Object.GetObjectKind().GroupVersionKind(); got != *r.expectedGVK {
			r.logger.Error("reflector: skipping watch event of the wrong kind",
				"eventType", string(ev.Type), "want", r.expectedGVK.String(), "got", got.String())
			return "", false
		}
	}
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		r.logger.Error("reflector: skipping watch event without object metadata",
			"eventType", string(ev.Type), "err", err)
		return "", false
	}
	return m.GetResourceVersion(), true
}

// apply hands one accepted event to the Store (diagram step 2). A Store error
// loses that one event and is logged; the watch goes on. Bookmarks carry no
// change: they only move the resourceVersion forward.
func (r *Reflector) apply(ev watch.Event) {
	var err error
	switch ev.Type {
	case watch.Added:
		err = r.store.Add(ev.Object)
	case watch.Modified:
		err = r.store.Update(ev.Object)
	case watch.Deleted:
		// The object is the final state the server sent, not what the Store holds.
		err = r.store.Delete(ev.Object)
	}
	if err != nil {
		r.logger.Error("reflector: the Store rejected a watch event",
			"eventType", string(ev.Type), "object", objectName(ev.Object), "err", err)
	}
}

// waitToRewatch is the backing-off-to-re-watch state: wait for the shared
// backoff delay, then go back to resume without relisting.
func (r *Reflector) waitToRewatch(ctx context.Context, resume state) transition {
	delay := r.nextDelay()
	r.logger.Debug("reflector: backing off before re-watching", "delay", delay)
	if !sleep(ctx, delay) {
		return transition{to: stateStopped, cause: "context cancelled while backing off"}
	}
	return transition{to: resume, cause: fmt.Sprintf("waited %v", delay)}
}

// idleTimer fires when a watch has been silent for the idle timeout. A
// disabled one never fires.
type idleTimer struct {
	d time.Duration
	t *time.Timer
}

func newIdleTimer(d time.Duration) *idleTimer {
	if d <= 0 {
		return &idleTimer{}
	}
	return &idleTimer{d: d, t: time.NewTimer(d)}
}

func (i *idleTimer) c() <-chan time.Time {
	if i.t == nil {
		return nil
	}
	return i.t.C
}

func (i *idleTimer) reset() {
	if i.t != nil {
		i.t.Reset(i.d)
	}
}

func (i *idleTimer) stop() {
	if i.t != nil {
		i.t.Stop()
	}
}

// objectName is "namespace/name" (or "name") for log lines.
func objectName(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	if ns := m.GetNamespace(); ns != "" {
		return ns + "/" + m.GetName()
	}
	return m.GetName()
}
