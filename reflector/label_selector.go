package reflector

import (
	"fmt"
	"log/slog"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// A Reflector with a label selector caches the objects whose labels match it
// (Options.LabelSelector, the selector syntax of kubectl -l, for example
// "informerlab.dev/bucket in (3,4,9)"). It works like the shard selector
// (shard.go), and the two combine: an object is cached when it is in the
// shard and its labels match.
//
//  1. Every list and every watch carries the selector in
//     ListOptions.LabelSelector. A ListerWatcher that narrows further must
//     AND its own selector to the one it is given (join the two with a
//     comma), not overwrite it.
//  2. What comes back is checked again on the client (labels.Parse, the
//     same matching the server does), so the Store holds only matching
//     objects even if the ListerWatcher overwrote the selector or the server
//     ignored it. Against a server that filtered, the check drops nothing.
//     Unlike a uid, labels change: an object relabelled out of the selector
//     reaches a filtering server's watcher as Deleted, and a Modified event
//     whose object no longer matches is turned into that Deleted here.
//  3. SetLabelSelector changes the selector while the Reflector runs: the
//     open watch ends and the Reflector relists at once with the new one,
//     and Store.Replace turns objects that left into Deleted deltas and
//     objects that joined into Added ones. Events the old watch delivers
//     before it ends are checked against the selector the Store was listed
//     with, and the relist's Replace settles them.

// parseLabel reads a label selector; "" is no selector.
func parseLabel(sel string) (labels.Selector, error) {
	if sel == "" {
		return nil, nil
	}
	ls, err := labels.Parse(sel)
	if err != nil {
		return nil, fmt.Errorf("reflector: invalid label selector %q: %w", sel, err)
	}
	return ls, nil
}

// SetLabelSelector changes the label selector the Reflector caches (see the
// comment at the top of label_selector.go): the running watch ends, and the
// Reflector relists at once with sel. "" caches every object (of the shard).
// A selector that does not parse is refused with an error and changes
// nothing; setting the current one again does nothing. Safe for concurrent
// use, while Run runs or not.
func (r *Reflector) SetLabelSelector(sel string) error {
	ls, err := parseLabel(sel)
	if err != nil {
		return err
	}
	r.reselect("label selector", "labelSelector", sel, func(s *shard) bool {
		if s.label == sel && s.labelErr == nil {
			return false
		}
		s.label, s.labelSel, s.labelErr = sel, ls, nil
		return true
	})
	return nil
}

// LabelSelector returns the label selector the Reflector caches, "" for
// none. Safe for concurrent use.
func (r *Reflector) LabelSelector() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shard.label
}

// inLabels reports whether obj's labels match the label selector the Store
// was listed with (always, without one). The first object that does not is
// logged: the server, or the ListerWatcher, did not filter.
func (r *Reflector) inLabels(obj runtime.Object) bool {
	sel := r.listedShard.labelSel
	if sel == nil {
		return true
	}
	m, err := meta.Accessor(obj)
	if err == nil && sel.Matches(labels.Set(m.GetLabels())) {
		return true
	}
	if !r.labelFilterLogged {
		r.labelFilterLogged = true
		r.logger.Warn("reflector: an object outside the label selector arrived; filtering on the client",
			slog.String("labelSelector", r.listedShard.label), slog.String("object", objectName(obj)))
	}
	return false
}

// filterSelected keeps the items of a list that are in the shard and match
// the label selector.
func (r *Reflector) filterSelected(items []any) []any {
	items = r.filterShard(items)
	if r.listedShard.labelSel == nil {
		return items
	}
	kept := items[:0]
	for _, it := range items {
		if o, ok := it.(runtime.Object); ok && r.inLabels(o) {
			kept = append(kept, it)
		}
	}
	return kept
}

// selectEvent decides what a watch event does to the Store: a bookmark
// passes; an object outside the shard is dropped (a uid never changes, so it
// was never cached); an object whose labels do not match is dropped when
// Added, deleted when Modified (it was relabelled out of the selector, and
// the server did not say so), and deleted when Deleted (a Store that never
// held it ignores that).
func (r *Reflector) selectEvent(ev watch.Event) (watch.Event, bool) {
	if ev.Type == watch.Bookmark {
		return ev, true
	}
	if !r.inShard(ev.Object) {
		return ev, false
	}
	if r.inLabels(ev.Object) {
		return ev, true
	}
	switch ev.Type {
	case watch.Modified, watch.Deleted:
		return watch.Event{Type: watch.Deleted, Object: ev.Object}, true
	default:
		return ev, false
	}
}
