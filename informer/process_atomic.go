package informer

import (
	"fmt"
	"slices"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// processReplacedAll applies a whole list popped from an atomic queue, in
// three phases:
//
//  1. Compare the list with the cache. Every listed object is an update of
//     the cached one, or an addition; every cached key the list lacks is a
//     deletion, reported with a [deltafifo.DeletedFinalStateUnknown] holding
//     the cached object (the watch never said it went).
//  2. Replace the cache with the list, in one step. If that fails, nothing
//     has changed and no handler is told anything.
//  3. Tell the handlers: the deletions first (in key order), then the
//     additions and updates in list order.
//
// So the cache never mixes the old state with the new one, and no handler
// hears of the list before the cache holds all of it (KEP-5647). A key
// listed twice (no real server does that) is an addition or update, then an
// update from the first listed object to the second.
//
// client-go: tools/cache.processReplacedAllInfo.
func processReplacedAll(handler ResourceEventHandler, store indexer.Store, info deltafifo.ReplacedAllInfo, isInInitialList bool, trace tracer) error {
	type change struct {
		old, new any
		isUpdate bool
	}
	changes := make([]change, 0, len(info.Objects))
	latest := make(map[string]any, len(info.Objects))
	for i, obj := range info.Objects {
		key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return fmt.Errorf("informer: ReplacedAll: object %d: %w", i, err)
		}
		old, exists := latest[key]
		if !exists {
			old, exists, err = store.GetByKey(key)
			if err != nil {
				return fmt.Errorf("informer: ReplacedAll: %w", err)
			}
		}
		changes = append(changes, change{old: old, new: obj, isUpdate: exists})
		latest[key] = obj
	}
	var deletions []deltafifo.DeletedFinalStateUnknown
	cached := store.ListKeys()
	slices.Sort(cached)
	for _, key := range cached {
		if _, listed := latest[key]; listed {
			continue
		}
		old, _, err := store.GetByKey(key)
		if err != nil {
			return fmt.Errorf("informer: ReplacedAll: %w", err)
		}
		deletions = append(deletions, deltafifo.DeletedFinalStateUnknown{Key: key, Obj: old})
	}

	// Steps 4-5 (add object, store object & key): the whole cache at once...
	if err := store.Replace(info.Objects, info.ResourceVersion); err != nil {
		return fmt.Errorf("informer: ReplacedAll: %w", err)
	}
	trace.storedList(len(info.Objects), len(deletions), info.ResourceVersion)

	// ...step 6 (dispatch event handler) after: deletions, then the list.
	for _, tomb := range deletions {
		handler.OnDelete(tomb)
	}
	for _, c := range changes {
		if c.isUpdate {
			handler.OnUpdate(c.old, c.new)
		} else {
			handler.OnAdd(c.new, isInInitialList)
		}
	}
	return nil
}

// processSyncAll answers a resync popped from an atomic queue: every cached
// object, in key order, as OnUpdate(obj, obj). The cache is current at this
// point of the line, so unlike a per-object Resync nothing stale can be
// re-delivered, and there is nothing to skip.
//
// client-go: tools/cache.processDeltas (SyncAll).
func processSyncAll(handler ResourceEventHandler, store indexer.Store) {
	keys := store.ListKeys()
	slices.Sort(keys)
	for _, key := range keys {
		obj, exists, err := store.GetByKey(key)
		if err != nil || !exists {
			continue
		}
		handler.OnUpdate(obj, obj)
	}
}
