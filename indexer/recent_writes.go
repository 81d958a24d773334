package indexer

import (
	"container/list"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// recentWrite is what a MutationCache remembers for one key: an object the
// controller wrote (obj set), or a deletion the informer reported (obj nil:
// a tombstone), with the uid and resourceVersion it was seen at.
type recentWrite struct {
	key     string
	obj     any // nil for a deletion
	uid     types.UID
	rv      string
	expires time.Time // after this instant the record is gone
}

// deleted reports whether the record is a tombstone.
func (w *recentWrite) deleted() bool { return w.obj == nil }

// recentWrites is a least-recently-used set of records, at most max of
// them, each dropped at its expiry. It is not safe for concurrent use: the
// MutationCache's lock guards it.
//
// Invariants (checkInvariants): byKey has one element per element of order,
// each under its record's key; there are at most max of them. The front of
// order is the record used last, the back the one to evict next.
type recentWrites struct {
	max   int
	order list.List // of *recentWrite, most recently used at the front
	byKey map[string]*list.Element
}

func newRecentWrites(maxSize int) *recentWrites {
	return &recentWrites{max: maxSize, byKey: map[string]*list.Element{}}
}

// get returns the record for key and marks it used, unless it has expired
// at now, in which case it is dropped.
func (w *recentWrites) get(key string, now time.Time) (*recentWrite, bool) {
	el, ok := w.byKey[key]
	if !ok {
		return nil, false
	}
	rec := el.Value.(*recentWrite)
	if now.After(rec.expires) {
		w.remove(key)
		return nil, false
	}
	w.order.MoveToFront(el)
	return rec, true
}

// put stores rec, replacing the record for its key, as the one used last.
// When that makes one too many, the least recently used record goes.
func (w *recentWrites) put(rec *recentWrite) {
	if el, ok := w.byKey[rec.key]; ok {
		el.Value = rec
		w.order.MoveToFront(el)
		return
	}
	if w.order.Len() >= w.max {
		w.remove(w.order.Back().Value.(*recentWrite).key)
	}
	w.byKey[rec.key] = w.order.PushFront(rec)
}

// remove drops the record for key, if any.
func (w *recentWrites) remove(key string) {
	if el, ok := w.byKey[key]; ok {
		w.order.Remove(el)
		delete(w.byKey, key)
	}
}

// keys returns the keys of the records not expired at now, least recently
// used first. It changes nothing.
func (w *recentWrites) keys(now time.Time) []string {
	out := make([]string, 0, w.order.Len())
	for el := w.order.Back(); el != nil; el = el.Prev() {
		if rec := el.Value.(*recentWrite); !now.After(rec.expires) {
			out = append(out, rec.key)
		}
	}
	return out
}

func (w *recentWrites) checkInvariants() error {
	if w.order.Len() != len(w.byKey) {
		return fmt.Errorf("recent writes: %d in the LRU order, %d by key", w.order.Len(), len(w.byKey))
	}
	if w.order.Len() > w.max {
		return fmt.Errorf("recent writes: %d records, at most %d allowed", w.order.Len(), w.max)
	}
	for el := w.order.Front(); el != nil; el = el.Next() {
		rec := el.Value.(*recentWrite)
		if w.byKey[rec.key] != el {
			return fmt.Errorf("recent writes: record %q is not found under its key", rec.key)
		}
	}
	return nil
}
