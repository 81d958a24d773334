package indexer

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// What a MutationCache is told: the controller's own writes (Mutation) and
// what the informer saw (OnAddOrUpdate, OnDelete).

// Mutation remembers obj, the API server's answer to a write the controller
// made, for the TTL: reads return it until the backing store holds the
// object at its resourceVersion or later. It is ignored, with a nil error,
// when the overlay already holds a newer copy of the object, or when the
// informer has reported this object deleted (a deletion at this
// resourceVersion, or of this uid): a write that arrives after its object's
// delete event must not bring the object back. If two goroutines hand in
// copies of one object, the one with the higher resourceVersion is kept.
//
// obj must have object metadata and a resourceVersion the API server gave
// it; otherwise Mutation returns an error and remembers nothing.
//
// client-go: tools/cache.MutationCache.Mutation.
func (c *MutationCache) Mutation(obj any) error {
	key, m, err := identify(obj)
	if err != nil {
		return err
	}
	rv := m.GetResourceVersion()
	if _, err := resourceversion.CompareResourceVersion(rv, rv); err != nil {
		return fmt.Errorf("indexer: mutation of %q: %w", key, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if rec, ok := c.writes.get(key, now); ok {
		cmp, err := resourceversion.CompareResourceVersion(rv, rec.rv)
		comparable := err == nil
		if comparable && cmp < 0 {
			return nil // the overlay has seen a later state of the object
		}
		if rec.deleted() && (comparable && cmp == 0 || rec.uid == m.GetUID()) {
			return nil // this object is known to be deleted
		}
	}
	c.writes.put(&recentWrite{key: key, obj: obj, uid: m.GetUID(), rv: rv, expires: now.Add(c.ttl)})
	return nil
}

// OnAddOrUpdate tells the cache that the informer's store now holds obj; call
// it from the informer's add and update handlers. A written copy that obj is
// as new as, or newer than, is dropped: the store has caught up. So is one
// whose resourceVersion cannot be compared with obj's.
//
// client-go: tools/cache.MutationCache.OnAddOrUpdate.
func (c *MutationCache) OnAddOrUpdate(obj runtime.Object) error {
	key, m, err := identify(obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rec, ok := c.writes.get(key, time.Now()); ok {
		// No uid check: resourceVersions of one resource are comparable
		// across objects, so a later one means the record is out of date.
		if cmp, err := resourceversion.CompareResourceVersion(m.GetResourceVersion(), rec.rv); err != nil || cmp >= 0 {
			c.writes.remove(key)
		}
	}
	return nil
}

// OnDelete tells the cache that the informer's store deleted obj (its last
// state); call it from the informer's delete handler, with the object out of
// a DeletedFinalStateUnknown tombstone. A written copy of the same uid, or
// one older than obj, is replaced by a record of the deletion, kept for the
// TTL so that a late Mutation of the deleted object is ignored. A written
// copy of another uid at a later resourceVersion is kept: the controller may
// have created a new object with the same name.
//
// client-go: tools/cache.MutationCache.OnDelete.
func (c *MutationCache) OnDelete(obj runtime.Object) error {
	key, m, err := identify(obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if rec, ok := c.writes.get(key, now); ok {
		cmp, err := resourceversion.CompareResourceVersion(m.GetResourceVersion(), rec.rv)
		if !(err == nil && cmp >= 0 || rec.uid == m.GetUID()) {
			return nil
		}
	}
	c.writes.put(&recentWrite{key: key, uid: m.GetUID(), rv: m.GetResourceVersion(), expires: now.Add(c.ttl)})
	return nil
}

// Keys returns the keys the overlay remembers a written copy or a deletion
// for, least recently used first: the writes the informer has not been seen
// to catch up with, and the deletions that keep late writes out.
func (c *MutationCache) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes.keys(time.Now())
}

// identify returns obj's key and metadata, or an error for an object
// without metadata.
func identify(obj any) (string, metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", nil, fmt.Errorf("indexer: mutation cache: %w", err)
	}
	key, err := MetaNamespaceKeyFunc(obj)
	if err != nil {
		return "", nil, KeyError{Obj: obj, Err: err}
	}
	return key, m, nil
}
