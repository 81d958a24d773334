package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
)

// BucketFunc says which bucket a Request's object is in, from the object's
// uid; ok is false when it cannot tell (the object is not in this replica's
// cache).
//
// client-go: none.
type BucketFunc func(req Request) (bucket int, ok bool)

// KeyGetter is the lookup a [BucketFunc] needs: an informer's Indexer, or
// its Store, fits.
//
// client-go: tools/cache.Store.GetByKey.
type KeyGetter interface {
	GetByKey(key string) (any, bool, error)
}

// BucketFromCache returns a [BucketFunc] that reads the Request's object
// from store and computes its bucket of buckets ([BucketOf]). A key whose
// object is not in store has no bucket: with a sharded cache that is how a
// key of someone else's bucket looks, and also how a deleted object looks,
// so the guard cannot tell them apart and refuses both. Clean up after
// deletions with owner references or finalizers (an object with a
// finalizer stays cached, and bucketed, until it is gone).
func BucketFromCache(store KeyGetter, buckets int) BucketFunc {
	return func(req Request) (int, bool) {
		obj, ok, err := store.GetByKey(req.String())
		if err != nil || !ok {
			return 0, false
		}
		m, err := meta.Accessor(obj)
		if err != nil || m.GetUID() == "" {
			return 0, false
		}
		return BucketOf(m.GetUID(), buckets), true
	}
}

// admitVerdict is the guard's decision for one key.
type admitVerdict int

const (
	// admitRun: the bucket is held, synced, not releasing, freshly renewed.
	admitRun admitVerdict = iota
	// admitNotOurs: not held, or being released: another member reconciles
	// it (or will, once it holds the bucket and its relist brings the key).
	admitNotOurs
	// admitNotYet: held, but the cache has not synced the bucket yet: the
	// key came from that very relist and runs once it is done.
	admitNotYet
	// admitStale: held, but the last renewal is RenewDeadline old: this
	// member may have lost the Lease without knowing it yet.
	admitStale
)

func (s *ShardMember) admitsLocked(b int) admitVerdict {
	if b < 0 || b >= len(s.state) {
		return admitNotOurs
	}
	st := &s.state[b]
	switch {
	case !st.held || st.releasing:
		return admitNotOurs
	case !st.admitted:
		return admitNotYet
	case time.Since(st.lastRenew) >= s.renewDeadline:
		return admitStale
	}
	return admitRun
}

// Guard wraps r so that it runs a key only while this member may act on the
// key's bucket (bucketOf tells which): the bucket's Lease is held, the cache
// has synced with it, it is not being released, and its Lease was renewed
// less than RenewDeadline ago on the local monotonic clock. The check and
// the count of the bucket's in-flight reconciles are made under one lock, so
// a release that has begun sees every reconcile that was admitted.
//
// A refused key is not an error: a key of a bucket this member does not hold
// (or is releasing) is dropped, since its owner reconciles it. A key of a
// bucket just gained, whose relist has not reached the cache yet, is
// requeued after RetryPeriod: it came from that relist, and nothing else
// would bring it back once the bucket is admitted. So is a key refused for a
// stale renewal, since the renewal may yet succeed (if it does not, the
// bucket is dropped and the next try drops the key).
//
// The guard is no fence: a reconcile admitted just before the Lease was lost
// runs to its end. Its writes are stopped only by resourceVersion
// preconditions (an Update of what it read fails with a Conflict once the
// new owner wrote) — see "Sharding" in the package documentation.
func (s *ShardMember) Guard(r Reconciler, bucketOf BucketFunc) Reconciler {
	return ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		b, ok := bucketOf(req)
		if !ok {
			LoggerFrom(ctx).Debug("shard guard: object not in this replica's cache; not reconciled")
			return Result{}, nil
		}
		s.mu.Lock()
		verdict := s.admitsLocked(b)
		if verdict == admitRun {
			s.state[b].inflight++
		}
		s.mu.Unlock()
		switch verdict {
		case admitNotOurs:
			LoggerFrom(ctx).Debug("shard guard: bucket not held by this member; not reconciled", "bucket", b)
			return Result{}, nil
		case admitNotYet:
			LoggerFrom(ctx).Debug("shard guard: bucket gained, cache not synced yet; retrying later", "bucket", b)
			return Result{RequeueAfter: s.retryPeriod}, nil
		case admitStale:
			LoggerFrom(ctx).Debug("shard guard: bucket Lease not renewed within RenewDeadline; retrying later", "bucket", b)
			return Result{RequeueAfter: s.retryPeriod}, nil
		}
		defer func() {
			s.mu.Lock()
			s.state[b].inflight--
			s.mu.Unlock()
		}()
		return r.Reconcile(ctx, req)
	})
}
