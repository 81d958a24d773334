package reflector

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
)

// A selection that only widens (the new one selects every object the old
// one did, and more: a sharded controller that took over buckets) does not
// need the whole new selection listed again. The Store already holds the
// old selection as of X, the last resourceVersion the Reflector saw, so:
//
//  1. List only what the new selection adds, at X or newer
//     (resourceVersionMatch=NotOlderThan, which the API server answers from
//     its watch cache however long the resource has been quiet; an exact
//     list at X fails with 410 once X is compacted away). The list is at
//     some Y ≥ X: the gained objects as they were at Y.
//  2. Add them to the Store, one Add each, as a watch would have.
//  3. Watch from X with the new selection: every change after X, to old
//     and gained objects alike, arrives as an event (an object relabelled
//     out of the selection, as a delete). The events up to Y about the
//     gained part are already in the Store, newer, from the list: they are
//     skipped (a replay), so the Store never goes back in time. The first
//     event or bookmark past Y ends the replay.
//
// At one resourceVersion an object is in the old selection or in the gained
// part, never both, so nothing is missed and nothing is counted twice, and
// the list costs what was gained instead of the whole selection. Two kinds
// of change widen, one selector at a time:
//
//   - a shard selector that keeps every range it had and adds some
//     (WidenedShard), the label selector unchanged;
//   - a label selector of one "key in (values)" (or "key=value") that keeps
//     every value and adds some, or becomes "" (the gained part is then
//     "key notin (values)"), the shard selector unchanged.
//
// Anything else falls back to the full relist of shard.go: a narrowing or a
// mixed change (objects that left must become deletes, which only
// Store.Replace works out), both selectors changed at once, no
// resourceVersion yet, a list that fails, or resourceVersions that do not
// compare as numbers. client-go has no such path: it relists on any change
// of selector.

// gain is what a widening adds: the shard and label selectors of the gained
// objects, or none when the new selection selects the same objects.
type gain struct {
	shard, label string
	none         bool
}

// widening is the part of a change of selection that a gained-only list can
// serve; ok is false when it cannot.
func widening(from, to shard) (g gain, ok bool) {
	if from.parseErr() != nil || to.parseErr() != nil {
		return gain{}, false
	}
	switch {
	case from.label == to.label:
		if gained, ok := WidenedShard(from.expr, to.expr); ok {
			return gain{shard: gained, label: to.label, none: gained == ""}, true
		}
	case from.expr == to.expr:
		if gained, ok := WidenedLabels(from.label, to.label); ok {
			return gain{shard: to.expr, label: gained, none: gained == ""}, true
		}
	}
	return gain{}, false
}

// WidenedLabels is what a change of label selector from from to to adds,
// as WidenedShard is for a shard selector: the label selector of the
// objects to selects and from does not. ok is false unless both are one
// "key in (values)" (or "key=value") requirement on the same key and to
// keeps every value of from, or to is "" (the gained part is then "key
// notin (values)"). An empty gained with ok means both select the same
// objects. A bucket-labelled cache uses it to check only the children of
// the buckets the Reflector gained (widen.go).
func WidenedLabels(from, to string) (gained string, ok bool) {
	key, old, okFrom := inValues(from)
	if !okFrom {
		return "", false
	}
	if to == "" {
		r, err := labels.NewRequirement(key, selection.NotIn, old)
		if err != nil {
			return "", false
		}
		return r.String(), true
	}
	toKey, grown, okTo := inValues(to)
	if !okTo || toKey != key {
		return "", false
	}
	for _, v := range old {
		if !slices.Contains(grown, v) {
			return "", false
		}
	}
	var added []string
	for _, v := range grown {
		if !slices.Contains(old, v) {
			added = append(added, v)
		}
	}
	if len(added) == 0 {
		return "", true
	}
	r, err := labels.NewRequirement(key, selection.In, added)
	if err != nil {
		return "", false
	}
	return r.String(), true
}

// inValues reads a label selector of one requirement "key in (values)" or
// "key=value"; false for anything else.
func inValues(sel string) (key string, values []string, ok bool) {
	if sel == "" {
		return "", nil, false
	}
	parsed, err := labels.Parse(sel)
	if err != nil {
		return "", nil, false
	}
	reqs, _ := parsed.Requirements()
	if len(reqs) != 1 {
		return "", nil, false
	}
	switch reqs[0].Operator() {
	case selection.In, selection.Equals, selection.DoubleEquals:
		return reqs[0].Key(), reqs[0].ValuesUnsorted(), true
	}
	return "", nil, false
}

// WidenedShard is what a change of shard selector from from to to adds: the
// shard selector of the objects to selects and from does not. ok is false
// unless to selects every object from does, on the same field: a change
// that gives up a range, a from of "" (every object), or either expression
// not parsing. An empty gained with ok means both select the same objects
// (the same ranges, written differently). A sharded informer's cache uses
// it to check only the objects the Reflector gained (widen.go).
func WidenedShard(from, to string) (gained string, ok bool) {
	fromSel, err1 := parseShard(from)
	toSel, err2 := parseShard(to)
	if fromSel == nil || err1 != nil || err2 != nil {
		return "", false
	}
	old := fromSel.Requirements()
	key := old[0].Key
	var grown []sharding.ShardRangeRequirement
	if toSel == nil {
		grown = []sharding.ShardRangeRequirement{{Key: key, Start: "0x0000000000000000", End: "0x10000000000000000"}}
	} else {
		grown = toSel.Requirements()
	}
	oldSpans, okOld := spansOf(old, key)
	newSpans, okNew := spansOf(grown, key)
	if !okOld || !okNew || !covers(newSpans, oldSpans) {
		return "", false
	}
	var parts []string
	for _, s := range subtract(newSpans, oldSpans) {
		parts = append(parts, fmt.Sprintf("shardRange(%s, '0x%016x', '0x%016x')", key, s.start, s.end))
	}
	return strings.Join(parts, " || "), true
}

// span is a half-open range [start, end) of the 64-bit hash space (end may
// be 2⁶⁴, so big integers).
type span struct{ start, end *big.Int }

// spansOf turns ranges on key into sorted, merged spans; false if a range
// is on another field or a bound does not read as hex.
func spansOf(reqs []sharding.ShardRangeRequirement, key string) ([]span, bool) {
	var out []span
	for _, r := range reqs {
		start, ok1 := new(big.Int).SetString(strings.TrimPrefix(r.Start, "0x"), 16)
		end, ok2 := new(big.Int).SetString(strings.TrimPrefix(r.End, "0x"), 16)
		if r.Key != key || !ok1 || !ok2 {
			return nil, false
		}
		if start.Cmp(end) < 0 {
			out = append(out, span{start, end})
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.start.Cmp(b.start) })
	var merged []span
	for _, s := range out {
		if n := len(merged); n > 0 && s.start.Cmp(merged[n-1].end) <= 0 {
			if s.end.Cmp(merged[n-1].end) > 0 {
				merged[n-1].end = s.end
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged, true
}

// covers reports whether every span of inner lies inside one span of outer
// (both merged, so a span of inner cannot straddle two of outer).
func covers(outer, inner []span) bool {
	for _, in := range inner {
		if !slices.ContainsFunc(outer, func(o span) bool {
			return o.start.Cmp(in.start) <= 0 && in.end.Cmp(o.end) <= 0
		}) {
			return false
		}
	}
	return true
}

// subtract returns what of outer is not in inner (both merged, inner
// inside outer).
func subtract(outer, inner []span) []span {
	var out []span
	for _, o := range outer {
		at := o.start
		for _, in := range inner {
			if in.end.Cmp(o.start) <= 0 || in.start.Cmp(o.end) >= 0 {
				continue
			}
			if at.Cmp(in.start) < 0 {
				out = append(out, span{at, in.start})
			}
			at = in.end
		}
		if at.Cmp(o.end) < 0 {
			out = append(out, span{at, o.end})
		}
	}
	return out
}

// listGained serves a widening of the selection (the comment at the top of
// this file). ok is false when it cannot, and the caller relists the whole
// selection: nothing has been written to the Store then.
func (r *Reflector) listGained(ctx context.Context, from shard) (t transition, ok bool) {
	g, ok := widening(from, r.listedShard)
	rv := r.relistResourceVersion() // "0" before any list, "" once rv is known to be gone
	if !ok || rv == "" || rv == "0" {
		return transition{}, false
	}
	if g.none {
		return transition{to: stateWatching,
			cause: fmt.Sprintf("the new selection selects the same objects; re-watching from resourceVersion %q", rv)}, true
	}
	r.metrics.list()
	obj, err := r.lw.List(ctx, metav1.ListOptions{
		ResourceVersion:      rv,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		ShardSelector:        g.shard,
		LabelSelector:        g.label,
	})
	if ctx.Err() != nil {
		return transition{to: stateStopped, cause: "context cancelled while listing"}, true
	}
	var items []any
	listRV, next := "", ""
	if err == nil {
		listRV, next, items, err = extractPage(obj)
	}
	if err == nil && next != "" {
		err = fmt.Errorf("the server paginated a list that asked for no limit")
	}
	newer := false
	if err == nil {
		var cmp int
		if cmp, err = resourceversion.CompareResourceVersion(listRV, rv); err == nil && cmp < 0 {
			err = fmt.Errorf("the list is at resourceVersion %q, older than %q", listRV, rv)
		}
		newer = cmp > 0
	}
	if err != nil {
		r.logger.Info("reflector: listing only what the selection gained failed; relisting all of it",
			"resourceVersion", rv, "err", err)
		return transition{}, false
	}
	// The gained part, checked again on the client: a server that ignored
	// a selector sent objects the Store holds already, or outside it.
	shardSel, _ := parseShard(g.shard) // both parse: widening wrote them
	labelSel, _ := parseLabel(g.label)
	added := 0
	for _, it := range r.filterSelected(items) {
		obj, isObj := it.(runtime.Object)
		if !isObj || !matches(shardSel, labelSel, obj) {
			continue
		}
		if err := r.store.Add(it); err != nil {
			r.logger.Error("reflector: unable to add a gained object to the store", "err", err)
			continue
		}
		added++
	}
	if newer {
		r.replay = &gainedReplay{until: listRV, shard: shardSel, label: labelSel}
	}
	r.logger.Info("reflector: selection widened; listed only the objects it gained",
		"objects", added, "resourceVersion", listRV, "watchFrom", rv, "shardSelector", g.shard, "labelSelector", g.label)
	return transition{to: stateWatching,
		cause: fmt.Sprintf("selection widened: listed the %d objects it gained at resourceVersion %q; watching from %q", added, listRV, rv)}, true
}

// gainedReplay is the part of a widening's list that the following watch
// replays: events up to until about objects the two selectors select.
type gainedReplay struct {
	until string
	shard sharding.Selector
	label labels.Selector
}

// replayed reports whether a watch event is one a widening's list already
// brought, newer, to the Store: at or before the list's resourceVersion,
// about an object of the gained part. The first event or bookmark past it
// ends the replay.
func (r *Reflector) replayed(ev watch.Event, rv string) bool {
	p := r.replay
	if p == nil {
		return false
	}
	if cmp, err := resourceversion.CompareResourceVersion(rv, p.until); err != nil || cmp > 0 {
		r.replay = nil
		return false
	}
	return ev.Type != watch.Bookmark && matches(p.shard, p.label, ev.Object)
}

// matches reports whether obj is selected by both selectors (nil selects
// every object).
func matches(shardSel sharding.Selector, labelSel labels.Selector, obj runtime.Object) bool {
	if shardSel != nil {
		if in, err := shardSel.Matches(obj); err != nil || !in {
			return false
		}
	}
	if labelSel != nil {
		m, err := meta.Accessor(obj)
		if err != nil || !labelSel.Matches(labels.Set(m.GetLabels())) {
			return false
		}
	}
	return true
}
