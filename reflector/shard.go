package reflector

import (
	"errors"
	"fmt"
	"log/slog"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"

	"github.com/informerlab/informerlab/internal/shardselector"
)

// A sharded Reflector caches one share of a resource: the objects whose
// FNV-1a-64 hash of uid (or namespace) falls in the hash ranges of its shard
// selector (Options.ShardSelector, the wire expression
// "shardRange(object.metadata.uid, '0x…', '0x…') || …").
//
//  1. Every list and every watch carries the selector, so a server with
//     ShardedListAndWatch on sends only the shard's objects.
//  2. What comes back is checked again on the client with the same hash
//     (apimachinery's sharding.Selector): objects outside the shard are
//     dropped before the Store sees them. Against a server that filtered,
//     this drops nothing; against one that ignores the selector (the gate
//     off), it is what keeps the cache to its share, and the Reflector says
//     so once in the log. The check is always made, because the server's
//     answer does not say reliably whether it filtered: a list of a
//     built-in kind echoes the selector in metadata.shardInfo, but a list
//     of a custom resource never does, filtered or not.
//  3. SetShardSelector changes the selector while the Reflector runs: the
//     open watch ends and the Reflector relists at once, without backoff,
//     with the new selector. Store.Replace then does the bookkeeping: an
//     object that left the shard is missing from the new list and becomes a
//     Deleted delta, one that joined becomes an Added. A selector that only
//     widens is cheaper: only what it gained is listed (widen.go).
//
// A uid and a namespace never change, so an object never moves between
// shards on its own: only a change of selector moves it.

// errSelectorChanged ends a watch whose shard or label selector is no
// longer the Reflector's.
var errSelectorChanged = errors.New("reflector: selector changed")

// shard is what the Reflector selects: the shard selector and the label
// selector (label_selector.go), each as sent to the server and in the parsed
// form that re-checks answers, and a generation that counts changes of
// either.
type shard struct {
	expr string
	sel  sharding.Selector // nil when expr is ""
	err  error             // an Options.ShardSelector that does not parse

	label    string
	labelSel labels.Selector // nil when label is ""
	labelErr error           // an Options.LabelSelector that does not parse

	gen uint64
}

// parseErr is the first of the two selectors' parse errors, nil if both
// parsed.
func (s shard) parseErr() error {
	if s.err != nil {
		return s.err
	}
	return s.labelErr
}

// parseShard reads expr; "" is no selector.
func parseShard(expr string) (sharding.Selector, error) {
	if expr == "" {
		return nil, nil
	}
	sel, err := shardselector.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("reflector: invalid shard selector %q: %w", expr, err)
	}
	return sel, nil
}

// SetShardSelector changes the shard the Reflector caches (see the comment at
// the top of shard.go): the running watch ends, and the Reflector relists at
// once with expr (only what expr adds, when it gives nothing up: widen.go). "" caches every object. An expression that does not parse
// is refused with an error and changes nothing; setting the current one again
// does nothing. Safe for concurrent use, while Run runs or not.
func (r *Reflector) SetShardSelector(expr string) error {
	sel, err := parseShard(expr)
	if err != nil {
		return err
	}
	r.reselect("shard selector", "shardSelector", expr, func(s *shard) bool {
		if s.expr == expr && s.err == nil {
			return false
		}
		s.expr, s.sel, s.err = expr, sel, nil
		return true
	})
	return nil
}

// reselect is the one way a selector changes while the Reflector may run:
// change edits the selection under the lock and says whether it changed
// anything; if it did, the generation moves on, the running watch is woken
// to end, and the Reflector relists with the new selection.
func (r *Reflector) reselect(what, key, value string, change func(s *shard) bool) {
	r.mu.Lock()
	changed := change(&r.shard)
	if changed {
		r.shard.gen++
	}
	r.mu.Unlock()
	if !changed {
		return
	}
	r.wakeWatch()
	r.logger.Info("reflector: "+what+" changed", key, value)
}

// wakeWatch tells the running watch that a selector changed.
func (r *Reflector) wakeWatch() {
	select {
	case r.shardChanged <- struct{}{}:
	default: // a wake-up is already pending; the watch reads the newest selector
	}
}

// ShardSelector returns the shard selector the Reflector caches, "" for none.
// Safe for concurrent use.
func (r *Reflector) ShardSelector() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shard.expr
}

// currentShard returns the Reflector's selector as it is now.
func (r *Reflector) currentShard() shard {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shard
}

// shardStale reports whether a selector has changed since the last list.
func (r *Reflector) shardStale() bool {
	return r.currentShard().gen != r.listedShard.gen
}

// inShard reports whether obj belongs to the shard the Store was listed with
// (always, without a selector). The first object the server sent from
// outside the shard is logged: the server does not filter.
func (r *Reflector) inShard(obj runtime.Object) bool {
	sel := r.listedShard.sel
	if sel == nil {
		return true
	}
	in, err := sel.Matches(obj)
	if err == nil && in {
		return true
	}
	if !r.clientSideFilterLogged {
		r.clientSideFilterLogged = true
		r.logger.Warn("reflector: the server ignored the shard selector (is ShardedListAndWatch off?); filtering on the client",
			slog.String("shardSelector", r.listedShard.expr), slog.String("object", objectName(obj)))
	}
	return false
}

// filterShard keeps the items of a list that belong to the shard.
func (r *Reflector) filterShard(items []any) []any {
	if r.listedShard.sel == nil {
		return items
	}
	kept := items[:0]
	for _, it := range items {
		if o, ok := it.(runtime.Object); ok && r.inShard(o) {
			kept = append(kept, it)
		}
	}
	return kept
}
