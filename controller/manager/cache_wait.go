package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
)

// DefaultCacheWaitTimeout bounds WaitForResourceVersion and WaitForDeletion
// when ctx has no earlier deadline, so a cache that never catches up (its
// watch is stuck, or the object is outside what it watches) costs a
// reconciler a retry, not a worker.
const DefaultCacheWaitTimeout = 10 * time.Second

// deletionMemory is how many deletions per resource a tracker remembers.
const deletionMemory = 1024

// WaitForResourceVersion waits until the cache holds obj — the object of
// obj's kind, namespace and name — at obj's resourceVersion or newer, or
// has seen it deleted after that. Call it with the object a write filled
// in, before the next read that must see the write:
//
//	if err := c.UpdateStatus(ctx, foo); err != nil { ... }
//	if err := c.WaitForResourceVersion(ctx, foo); err != nil {
//		return controller.Result{}, err // the cache is behind: retry later
//	}
//
// Why: a write goes to the API server, and comes back to the cache only as
// a watch event, through the informer. A Get in between returns the old
// object, and a reconciler acting on it may undo or repeat its own write.
//
// resourceVersions are compared as numbers. That is right for fakeapi,
// whose resourceVersions are one counter, and for a real cluster since
// Kubernetes 1.35 (KEP-5504, comparable resource versions), which promises
// that the resourceVersions of one resource on one server are decimal
// integers that grow with every write. It is not right across resources,
// or across servers. A resourceVersion that is not such an integer is an
// error, not a guess.
//
// It returns an error when ctx ends, or after [DefaultCacheWaitTimeout]:
// the cache may be lagging (a slow or stuck watch), or the object may be
// outside the cache (another namespace, or deleted by someone else before
// this resource was first waited for).
//
// client-go: the staleness mitigation of Kubernetes 1.36 (KEP-5647:
// ConsistencyStore.WroteAt and EnsureReady, over the store's
// LastStoreSyncResourceVersion), here per object.
func (c *Client) WaitForResourceVersion(ctx context.Context, obj controller.Object) error {
	want := obj.GetResourceVersion()
	if _, err := resourceversion.CompareResourceVersion(want, want); err != nil {
		return fmt.Errorf("controller: client: WaitForResourceVersion: %T %q: pass the object a write returned: %w", obj, obj.GetName(), err)
	}
	return c.waitForCache(ctx, obj, "resourceVersion "+want, func(cached controller.Object, deletedAt string) (bool, error) {
		switch {
		case cached != nil:
			return atLeast(cached.GetResourceVersion(), want)
		case deletedAt != "":
			return atLeast(deletedAt, want)
		}
		return false, nil
	})
}

// WaitForDeletion waits until the cache no longer holds obj: no object of
// obj's kind, namespace and name, or one with another uid (it was deleted
// and created again). Call it after Delete, before a List that must not
// find the object. Errors are those of WaitForResourceVersion.
func (c *Client) WaitForDeletion(ctx context.Context, obj controller.Object) error {
	return c.waitForCache(ctx, obj, "deletion", func(cached controller.Object, _ string) (bool, error) {
		return cached == nil || (obj.GetUID() != "" && cached.GetUID() != obj.GetUID()), nil
	})
}

// waitForCache waits until done says the cache's state of obj's key is as
// wanted. done gets the cached object (nil if absent) and the
// resourceVersion of the last deletion of the key the tracker saw ("" if
// none).
func (c *Client) waitForCache(ctx context.Context, obj controller.Object, what string, done func(cached controller.Object, deletedAt string) (bool, error)) error {
	gvk, gvr, err := c.m.resourceFor(obj)
	if err != nil {
		return err
	}
	inf, err := c.informerFor(ctx, gvk, gvr)
	if err != nil {
		return err
	}
	tr, err := c.tracker(gvr, inf)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultCacheWaitTimeout)
	defer cancel()
	key := keyOf(types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
	for {
		// Take the signal before looking: a change made after the look
		// closes this channel, so it cannot be missed.
		changed := tr.changes()
		cached, deletedAt, err := tr.state(inf, key)
		if err != nil {
			return err
		}
		ok, err := done(cached, deletedAt)
		if err != nil {
			return fmt.Errorf("controller: client: waiting for %s %s: %w", ctrlutil.ResourceName(gvr), key, err)
		}
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			has := "nothing"
			if cached != nil {
				has = "resourceVersion " + cached.GetResourceVersion()
			}
			return fmt.Errorf("controller: client: the cache of %s has not caught up with %s of %s (it has %s): %w",
				ctrlutil.ResourceName(gvr), what, key, has, context.Cause(ctx))
		}
	}
}

// atLeast reports whether resourceVersion have is at least want.
func atLeast(have, want string) (bool, error) {
	cmp, err := resourceversion.CompareResourceVersion(have, want)
	if err != nil {
		return false, fmt.Errorf("resourceVersions %q and %q cannot be ordered: %w", have, want, err)
	}
	return cmp >= 0, nil
}

// tracker returns the tracker of gvr's informer, registering it on first
// use.
func (c *Client) tracker(gvr schema.GroupVersionResource, inf informer.SharedIndexInformer) (*cacheTracker, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tr, ok := c.trackers[gvr]; ok {
		return tr, nil
	}
	tr := &cacheTracker{changed: make(chan struct{}), deleted: map[string]string{}}
	if _, err := inf.AddEventHandler(tr); err != nil {
		return nil, fmt.Errorf("controller: client: cannot follow the cache of %s: %w", ctrlutil.ResourceName(gvr), err)
	}
	c.trackers[gvr] = tr
	return tr, nil
}

// cacheTracker is an event handler on one informer that wakes waiters
// whenever the cache changes, and remembers recent deletions (a deleted
// object leaves no resourceVersion in the cache). Its notifications arrive
// after the informer has updated its cache (step 5 before step 6), so what
// woke a waiter is always visible to it.
type cacheTracker struct {
	mu sync.Mutex // guards the fields below
	// changed is closed, and replaced, on every notification.
	changed chan struct{}
	// deleted maps the key of each deleted object to the resourceVersion
	// of its deletion; order holds its keys oldest first, at most
	// deletionMemory of them.
	deleted map[string]string
	order   []string
}

func (t *cacheTracker) changes() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

func (t *cacheTracker) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *cacheTracker) OnAdd(any, bool) { t.mu.Lock(); t.notifyLocked(); t.mu.Unlock() }

func (t *cacheTracker) OnUpdate(_, _ any) { t.mu.Lock(); t.notifyLocked(); t.mu.Unlock() }

// OnDelete remembers the deletion. A tombstone carries the last state the
// informer knew, whose resourceVersion is older than the deletion's.
func (t *cacheTracker) OnDelete(obj any) {
	key := ""
	if tomb, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
		key, obj = tomb.Key, tomb.Obj
	}
	rv := ""
	if m, err := meta.Accessor(obj); err == nil {
		rv = m.GetResourceVersion()
		if key == "" {
			key = keyOf(types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()})
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if key != "" {
		if _, ok := t.deleted[key]; !ok {
			t.order = append(t.order, key)
		}
		t.deleted[key] = rv
		if len(t.order) > deletionMemory {
			delete(t.deleted, t.order[0])
			t.order = t.order[1:]
		}
	}
	t.notifyLocked()
}

// state returns the cached object under key (nil if absent) and the
// resourceVersion of the key's last deletion seen.
func (t *cacheTracker) state(inf informer.SharedIndexInformer, key string) (controller.Object, string, error) {
	t.mu.Lock()
	deletedAt := t.deleted[key]
	t.mu.Unlock()
	item, exists, err := inf.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return nil, deletedAt, err
	}
	obj, ok := item.(controller.Object)
	if !ok {
		return nil, "", errors.New("controller: client: cached object has no metadata")
	}
	return obj, deletedAt, nil
}

// checkInvariants checks every tracker: deleted and order hold the same
// keys, each once, at most deletionMemory of them.
func (c *Client) checkInvariants() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for gvr, t := range c.trackers {
		t.mu.Lock()
		seen := map[string]bool{}
		for _, key := range t.order {
			if _, ok := t.deleted[key]; !ok || seen[key] {
				t.mu.Unlock()
				return fmt.Errorf("controller: client: tracker of %s: key %q is in order twice or not in deleted", ctrlutil.ResourceName(gvr), key)
			}
			seen[key] = true
		}
		n := len(t.deleted)
		t.mu.Unlock()
		if n != len(seen) || n > deletionMemory {
			return fmt.Errorf("controller: client: tracker of %s remembers %d deletions, %d in order", ctrlutil.ResourceName(gvr), n, len(seen))
		}
	}
	return nil
}
