package deltafifo

import (
	"errors"
	"fmt"

	"github.com/informerlab/informerlab/indexer"
)

// DeltaType says what happened to an object.
//
// client-go: tools/cache.DeltaType.
type DeltaType string

// The kinds of change a queue records.
const (
	// Added: a watch event said the object was created.
	Added DeltaType = "Added"
	// Updated: a watch event said the object changed.
	Updated DeltaType = "Updated"
	// Deleted: a watch event said the object is gone, or a relist no longer
	// lists it (then the object is a [DeletedFinalStateUnknown]).
	Deleted DeltaType = "Deleted"
	// Replaced: the object was listed by a (re)list. The consumer cannot tell
	// from this alone whether it is new or changed: it must look in its store.
	Replaced DeltaType = "Replaced"
	// Sync: a periodic resync re-delivers an object the consumer already has.
	Sync DeltaType = "Sync"

	// ReplacedAll: a (re)list, as one delta. Only an atomic [RealFIFO] emits
	// it; its Object is a [ReplacedAllInfo] holding the whole list. The
	// consumer replaces its store with the list in one step and works out
	// the additions, updates and deletions itself.
	ReplacedAll DeltaType = "ReplacedAll"
	// SyncAll: a periodic resync, as one delta. Only an atomic [RealFIFO]
	// emits it; its Object is a [SyncAllInfo]. The consumer re-delivers
	// everything its store holds.
	SyncAll DeltaType = "SyncAll"
)

// Delta is one change to one object. For a Deleted delta, Object is the last
// known state of the object, or a [DeletedFinalStateUnknown] if the deletion
// was inferred by a relist.
//
// client-go: tools/cache.Delta.
type Delta struct {
	Type   DeltaType
	Object any
}

// Deltas is everything that happened to one object while its key waited in
// the queue, oldest first. A [DeltaFIFO] never hands out an empty Deltas.
//
// client-go: tools/cache.Deltas.
type Deltas []Delta

// Oldest returns the first delta, or nil if there is none.
func (d Deltas) Oldest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[0]
}

// Newest returns the last delta, or nil if there is none.
func (d Deltas) Newest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[len(d)-1]
}

// DeletedFinalStateUnknown is the tombstone a queue puts in a Deleted delta
// when it learns of a deletion from a relist rather than from a watch event:
// the object vanished while the watch was down, so its final state is unknown.
// Obj is the last state the queue or its known objects had seen; it may be
// stale, and it is nil if nothing was known. Delete handlers must expect it.
//
// client-go: tools/cache.DeletedFinalStateUnknown.
type DeletedFinalStateUnknown struct {
	Key string
	Obj any
}

// DeletionHandlingMetaNamespaceKeyFunc is [indexer.MetaNamespaceKeyFunc] that
// also accepts a [DeletedFinalStateUnknown] and returns the key it carries.
// Delete handlers use it to compute the key of whatever they were given.
//
// client-go: tools/cache.DeletionHandlingMetaNamespaceKeyFunc.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return indexer.MetaNamespaceKeyFunc(obj)
}

// KeyListerGetter is the read side of the consumer's store: the objects the
// consumer already knows about. A queue consults it to infer deletions on
// Replace, to ignore deletes of unknown objects and to find what to resync.
// [indexer.Indexer] satisfies it.
//
// client-go: tools/cache.KeyListerGetter.
type KeyListerGetter interface {
	ListKeys() []string
	GetByKey(key string) (obj any, exists bool, err error)
}

// TransformFunc rewrites an object before it is queued, typically to strip
// fields the consumer never reads (managedFields, big annotations) and save
// memory. It runs once per object that arrives from outside: never on a Sync
// delta (the object came from the consumer's store and was transformed
// already) and never on a tombstone. An error aborts the enqueue.
//
// client-go: tools/cache.TransformFunc.
type TransformFunc func(obj any) (any, error)

// PopProcessFunc consumes what Pop took off the queue. isInInitialList is
// true while the items of the first Replace (the initial list) are being
// delivered. The queue lock is held while it runs: it must not call back
// into the queue.
//
// client-go: tools/cache.PopProcessFunc.
type PopProcessFunc func(deltas Deltas, isInInitialList bool) error

// ErrFIFOClosed is returned by Pop once the queue is closed and empty.
var ErrFIFOClosed = errors.New("deltafifo: queue is closed")

// ErrZeroLengthDeltasObject is wrapped in the KeyError returned by KeyOf for
// an empty Deltas, which has no object to take a key from.
var ErrZeroLengthDeltasObject = errors.New("deltafifo: zero-length Deltas has no key")

// keyOf is the key function both queues share: it unwraps Deltas (newest
// object), a Delta (its object) and tombstones (their Key) before calling
// keyFunc.
func keyOf(keyFunc indexer.KeyFunc, obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", indexer.KeyError{Obj: obj, Err: ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(Delta); ok {
		obj = d.Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	key, err := keyFunc(obj)
	if err != nil {
		return "", indexer.KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// transform applies the transformer to an object arriving from outside.
// Tombstones pass through untouched.
func transform(t TransformFunc, obj any) (any, error) {
	if t == nil {
		return obj, nil
	}
	if _, ok := obj.(DeletedFinalStateUnknown); ok {
		return obj, nil
	}
	out, err := t(obj)
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	return out, nil
}
