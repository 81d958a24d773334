package indexer

import (
	"errors"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// MutationCache lets a controller read its own writes before the informer's
// cache has them. It is safe for concurrent use. Make one with
// [NewIntegerResourceVersionMutationCache]; the zero value is not usable.
//
// The problem it answers is the stale cache, which every controller meets:
// a controller writes an object to the API server, and the server's answer
// (with the new resourceVersion) comes back to the informer's cache only as a
// watch event, through the Reflector, the queue and the informer (diagram
// steps 1 to 5). A read from the cache in between returns the object as it
// was before the write. A controller that acts on that copy repeats its own
// work, or builds its next write on an old resourceVersion and is refused
// with a 409 Conflict.
//
// A MutationCache is an overlay on the informer's cache (the backing store).
// After each successful write the controller hands it the server's answer
// ([MutationCache.Mutation]); reads ([MutationCache.GetByKey],
// [MutationCache.ByIndex]) return the newer of that copy and the backing
// store's, newer by resourceVersion. As soon as the backing store holds the
// object at the written resourceVersion or later, the overlay's copy is
// dropped: the informer has caught up. A copy is also dropped after the TTL,
// or when MaxCacheSize newer ones push it out (least recently used first), so
// the overlay only ever bridges the short window of a watch event's travel.
//
// The informer's event handlers should tell it what the informer saw:
// [MutationCache.OnAddOrUpdate] drops a copy the store has caught up with, and
// [MutationCache.OnDelete] drops a copy of an object the server has deleted
// and remembers the deletion for the TTL, so that a write of the deleted
// object that arrives late (Mutation after the delete event) is not shown.
//
// Without IncludeAdds, an object the backing store does not hold is absent,
// whatever the overlay says: the cache cannot tell "the informer has not seen
// my create yet" from "it was created and then deleted". With IncludeAdds it
// is shown, which is right for a create the informer has not yet seen, and
// wrong for up to the TTL if the object was deleted before the informer
// ever saw it (no delete event then reaches OnDelete): a caller that
// includes adds checks, after the TTL, that what it created still exists.
//
// It compares resourceVersions as apimachinery's
// resourceversion.CompareResourceVersion does: decimal integers of one
// resource on one server. A resourceVersion it cannot compare never makes the
// overlay's copy win. The other answer to the same problem is to wait for the
// cache (the controller/manager package's Client.WaitForResourceVersion); the
// walkthrough is TestMutationCacheReadsOwnWriteUntilInformerCatchesUp.
//
// client-go: tools/cache.MutationCache.
type MutationCache struct {
	backing     Store
	indexer     Indexer
	ttl         time.Duration
	includeAdds bool

	mu     sync.Mutex // guards writes
	writes *recentWrites
}

// MutationCacheOptions configures [NewIntegerResourceVersionMutationCache].
//
// client-go: tools/cache.MutationCacheOptions.
type MutationCacheOptions struct {
	// Indexer is what ByIndex looks objects up in, usually the informer's own
	// Indexer, the same as the backing store. Nil makes ByIndex an error.
	Indexer Indexer
	// TTL is how long a written copy, or a reported deletion, is kept at
	// most. Zero or less means 5 minutes.
	TTL time.Duration
	// IncludeAdds shows written objects the backing store does not hold yet
	// (see MutationCache).
	IncludeAdds bool
	// MaxCacheSize bounds how many keys the overlay remembers; past it the
	// least recently used goes. Zero or less means 100.
	MaxCacheSize int
}

// NewIntegerResourceVersionMutationCache returns a MutationCache over
// backingCache, the informer's cache, for objects whose resourceVersions are
// integers that grow with every write of the resource, as the API server's
// do.
//
// client-go: tools/cache.NewIntegerResourceVersionMutationCacheWithOptions.
func NewIntegerResourceVersionMutationCache(backingCache Store, options MutationCacheOptions) *MutationCache {
	ttl, maxSize := options.TTL, options.MaxCacheSize
	if ttl <= 0 {
		ttl = 5 * time.Minute
	}
	if maxSize <= 0 {
		maxSize = 100
	}
	return &MutationCache{
		backing:     backingCache,
		indexer:     options.Indexer,
		ttl:         ttl,
		includeAdds: options.IncludeAdds,
		writes:      newRecentWrites(maxSize),
	}
}

// GetByKey returns the newer of the backing store's object under key and the
// copy written through Mutation. If the backing store has caught up, the
// written copy is dropped. An object the backing store does not hold is
// absent, unless IncludeAdds is set and a written copy (not a deletion) is
// remembered.
func (c *MutationCache) GetByKey(key string) (any, bool, error) {
	if c.backing == nil {
		return nil, false, errors.New("indexer: the mutation cache has no backing store")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, exists, err := c.backing.GetByKey(key)
	if err != nil {
		return nil, false, err
	}
	rec, remembered := c.writes.get(key, time.Now())
	if !exists {
		if c.includeAdds && remembered && !rec.deleted() {
			return rec.obj, true, nil
		}
		return nil, false, nil
	}
	newer, _ := c.newerLocked(obj, rec, remembered)
	return newer, true, nil
}

// newerLocked returns the newer of a backing object and the record for its
// key, and whether that is the written copy. A record the backing object has
// caught up with is dropped; so is one whose resourceVersion cannot be
// compared with the backing object's. A deletion record is never returned.
func (c *MutationCache) newerLocked(backing any, rec *recentWrite, remembered bool) (any, bool) {
	if !remembered {
		return backing, false
	}
	m, err := meta.Accessor(backing)
	if err != nil {
		return backing, false // not an API object: nothing to compare
	}
	if cmp, err := resourceversion.CompareResourceVersion(m.GetResourceVersion(), rec.rv); err != nil || cmp >= 0 {
		c.writes.remove(rec.key)
		return backing, false
	}
	if rec.deleted() {
		return backing, false
	}
	return rec.obj, true
}

// ByIndex returns the objects filed under indexedValue in the named index of
// the Indexer option, each as GetByKey would return it: the written copy
// where it is newer. A written copy is returned if its own indexed values
// hold indexedValue, so a write that moved an object to another value is
// found under the new one, not the old. Written copies of objects the
// Indexer does not hold count only with IncludeAdds. A copy the IndexFunc
// fails on is left out, as the Indexer would have refused to file it.
func (c *MutationCache) ByIndex(indexName, indexedValue string) ([]any, error) {
	if c.indexer == nil {
		return nil, errors.New("indexer: no indexer has been provided to the mutation cache")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keys, err := c.indexer.IndexKeys(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	indexFunc := c.indexer.GetIndexers()[indexName]
	filed := func(obj any) bool {
		if indexFunc == nil {
			return false
		}
		values, err := indexFunc(obj)
		return err == nil && slices.Contains(values, indexedValue)
	}
	now := time.Now()
	var out []any
	seen := make(map[string]bool, len(keys))
	for _, key := range keys {
		seen[key] = true
		obj, exists, err := c.indexer.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		rec, remembered := c.writes.get(key, now)
		if newer, written := c.newerLocked(obj, rec, remembered); !written || filed(newer) {
			out = append(out, newer)
		}
	}
	// Written copies of objects filed elsewhere, or not at all. Oldest first,
	// so that marking each one used leaves the LRU order as it was.
	for _, key := range c.writes.keys(now) {
		rec, remembered := c.writes.get(key, now)
		if seen[key] || !remembered || rec.deleted() {
			continue
		}
		obj, exists, err := c.indexer.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			if c.includeAdds && filed(rec.obj) {
				out = append(out, rec.obj)
			}
			continue
		}
		if newer, written := c.newerLocked(obj, rec, true); written && filed(newer) {
			out = append(out, newer)
		}
	}
	return out, nil
}
