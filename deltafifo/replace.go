package deltafifo

import (
	"fmt"
	"log/slog"
	"slices"

	"github.com/informerlab/informerlab/indexer"
)

// Replace takes the result of a (re)list: the complete current state of the
// collection. It is atomic, and all or nothing: if any object cannot be keyed
// or transformed, it returns the error and queues nothing.
//
//  1. Every listed object gets a Replaced delta, in list order. Nothing is
//     skipped: a key whose last queued delta is Deleted gets its Replaced
//     delta too, because the object was recreated.
//  2. Every queued key the list does not contain gets a Deleted delta holding
//     a [DeletedFinalStateUnknown] with the newest queued object. This catches
//     objects created and deleted while the watch was down whose Added delta
//     is still waiting.
//  3. Every known object the list does not contain and that has nothing
//     queued gets the same kind of tombstone, holding the known object.
//     Known keys are visited in sorted order, so the result is reproducible.
//
// The first Replace before any Add, Update or Delete is the initial list:
// HasSynced stays false until every key it left queued has been processed.
// resourceVersion is not used by DeltaFIFO.
func (f *DeltaFIFO) Replace(list []any, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	keys, objs, listed, err := prepareList(f.keyFunc, f.transformer, list)
	if err != nil {
		return err
	}
	for i, key := range keys {
		// Step 2 (add object): a listed object is queued as Replaced.
		f.appendLocked(key, Delta{Type: Replaced, Object: objs[i]})
	}

	for _, key := range f.queue.queued() {
		if listed[key] {
			continue
		}
		f.appendLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: lastObject(f.items[key])}})
	}

	for _, t := range knownTombstones(f.knownObjects, f.logger, func(key string) bool {
		return listed[key] || len(f.items[key]) > 0
	}) {
		f.appendLocked(t.Key, Delta{Type: Deleted, Object: t})
	}

	if !f.populated {
		f.populated = true
		f.initialPopulationCount = f.queue.len()
		f.updateSyncedLocked()
	}
	return nil
}

// prepareList keys and transforms every listed object before anything is
// queued, so a bad object fails the whole list instead of half of it. listed
// is the set of keys.
func prepareList(keyFunc indexer.KeyFunc, t TransformFunc, list []any) (keys []string, objs []any, listed map[string]bool, err error) {
	keys = make([]string, len(list))
	objs = make([]any, len(list))
	listed = make(map[string]bool, len(list))
	for i, obj := range list {
		keys[i], err = keyOf(keyFunc, obj)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("deltafifo: replace: item %d: %w", i, err)
		}
		objs[i], err = transform(t, obj)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("deltafifo: replace: item %d (%q): %w", i, keys[i], err)
		}
		listed[keys[i]] = true
	}
	return keys, objs, listed, nil
}

// knownTombstones returns, in sorted key order, a tombstone for every known
// object that skip does not rule out (both queues skip the listed keys, and
// each skips the keys its own queue already speaks for). A known object that
// cannot be read gets a tombstone without it, and the failure is logged.
func knownTombstones(known KeyListerGetter, logger *slog.Logger, skip func(key string) bool) []DeletedFinalStateUnknown {
	if known == nil {
		return nil
	}
	keys := known.ListKeys()
	slices.Sort(keys)
	var out []DeletedFinalStateUnknown
	for _, key := range keys {
		if skip(key) {
			continue
		}
		obj, exists, err := known.GetByKey(key)
		if err != nil {
			logger.Error("deltafifo: cannot read known object; queueing a tombstone without it", "key", key, "err", err)
		}
		if err != nil || !exists {
			obj = nil
		}
		out = append(out, DeletedFinalStateUnknown{Key: key, Obj: obj})
	}
	return out
}

// lastObject is the object a tombstone for these deltas should carry: the
// newest one, unwrapped if it is itself a tombstone.
func lastObject(d Deltas) any {
	newest := d.Newest()
	if newest == nil {
		return nil
	}
	if t, ok := newest.Object.(DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return newest.Object
}

// Resync queues a Sync delta for every known object whose key has nothing
// queued, in sorted key order, all under one lock acquisition. A key with
// queued deltas is skipped: the store's copy is older than what is waiting,
// and re-delivering it would undo the newer change. Sync objects come from
// the consumer's store, so the transformer is not applied to them. Without
// KnownObjects, Resync does nothing.
func (f *DeltaFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.knownObjects == nil {
		return nil
	}

	known := f.knownObjects.ListKeys()
	slices.Sort(known)
	for _, key := range known {
		if len(f.items[key]) > 0 {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		if err != nil {
			f.logger.Error("deltafifo: cannot read known object; not resyncing it", "key", key, "err", err)
			continue
		}
		if !exists {
			continue
		}
		// Step 2 (add object): a resync re-delivers the stored object.
		f.appendLocked(key, Delta{Type: Sync, Object: obj})
	}
	return nil
}
