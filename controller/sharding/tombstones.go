package sharding

import (
	"context"
	"errors"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/workqueue"
)

// Tombstones remembers the uid of each object deleted from a sharded cache
// until its key has been reconciled (or refused for good), so that the
// guard can find the bucket of an object the cache no longer holds. Without
// it, a deleted object looks like another replica's (not in the cache) and
// its deletion is reconciled by no replica; with it, by exactly one: the
// holder of its bucket.
//
// Wire it in three places, all for the same resource:
//
//	tomb := sharding.NewTombstones()
//	c.Watch(controller.Kind(inf, tomb.Handler(controller.EnqueueRequestForObject{})))
//	guarded := tomb.Forgetting(member.Guard(r, tomb.BucketFromCache(inf.GetIndexer(), member.Buckets())))
//
// The handler records the uid before it enqueues the key, so the reconcile
// always finds it. A narrowed selector deletes the objects of the buckets
// given away from the cache as well; their tombstones name buckets not held,
// so the guard drops those keys, and Forgetting forgets them.
//
// A Tombstones is safe for concurrent use.
//
// client-go: none (tools/cache.DeletedFinalStateUnknown carries the last
// state of an object whose deletion was missed; this keeps the uid of every
// deletion until it is reconciled).
type Tombstones struct {
	mu   sync.Mutex           // guards uids
	uids map[string]types.UID // key → uid of the deleted object
}

// NewTombstones returns an empty Tombstones.
func NewTombstones() *Tombstones {
	return &Tombstones{uids: map[string]types.UID{}}
}

// Handler wraps h: a Delete records the object's key and uid, then goes on
// to h; a Create forgets the key's tombstone (the name is in use again), then
// goes on. Updates and generic events go straight to h.
func (t *Tombstones) Handler(h controller.EventHandler) controller.EventHandler {
	return tombstoneHandler{t: t, h: h}
}

type tombstoneHandler struct {
	t *Tombstones
	h controller.EventHandler
}

func (th tombstoneHandler) Create(ctx context.Context, e controller.CreateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	if e.Object != nil {
		th.t.forget(requestOf(e.Object).String(), "")
	}
	th.h.Create(ctx, e, q)
}

func (th tombstoneHandler) Update(ctx context.Context, e controller.UpdateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	th.h.Update(ctx, e, q)
}

func (th tombstoneHandler) Delete(ctx context.Context, e controller.DeleteEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	if e.Object != nil && e.Object.GetUID() != "" {
		th.t.mu.Lock()
		th.t.uids[requestOf(e.Object).String()] = e.Object.GetUID()
		th.t.mu.Unlock()
	}
	th.h.Delete(ctx, e, q)
}

func (th tombstoneHandler) Generic(ctx context.Context, e controller.GenericEvent, q workqueue.RateLimitingInterface[controller.Request]) {
	th.h.Generic(ctx, e, q)
}

func requestOf(obj controller.Object) controller.Request {
	return controller.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
}

// BucketFromCache is [BucketFromCache] that, for a key whose object is not
// in store, falls back on the key's tombstone: a deleted object has the
// bucket it had.
func (t *Tombstones) BucketFromCache(store KeyGetter, buckets int) BucketFunc {
	cached := BucketFromCache(store, buckets)
	return func(req controller.Request) (int, bool) {
		if b, ok := cached(req); ok {
			return b, true
		}
		uid, ok := t.uid(req.String())
		if !ok {
			return 0, false
		}
		return BucketOf(uid, buckets), true
	}
}

// Forgetting wraps a guarded Reconciler: once a key's reconcile ends for
// good (no error and no requeue, or a terminal error: it ran, or the guard
// dropped it as another member's), the key's tombstone is forgotten. A requeued or failed key
// keeps it for its next try. A tombstone recorded while the reconcile ran
// (the name was deleted again, with a new uid) is kept.
func (t *Tombstones) Forgetting(r controller.Reconciler) controller.Reconciler {
	return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		key := req.String()
		uid, had := t.uid(key)
		res, err := r.Reconcile(ctx, req)
		final := err == nil && res.RequeueAfter <= 0 || errors.Is(err, controller.TerminalError(nil))
		if had && final {
			t.forget(key, uid)
		}
		return res, err
	})
}

// Len returns the number of tombstones kept.
func (t *Tombstones) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.uids)
}

func (t *Tombstones) uid(key string) (types.UID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	uid, ok := t.uids[key]
	return uid, ok
}

// forget drops key's tombstone; if uid is not "", only a tombstone of that
// uid.
func (t *Tombstones) forget(key string, uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.uids[key]; ok && (uid == "" || cur == uid) {
		delete(t.uids, key)
	}
}
