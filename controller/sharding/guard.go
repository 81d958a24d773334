package sharding

import (
	"context"
	"sync"
	"time"

	"github.com/informerlab/informerlab/controller"
	"k8s.io/apimachinery/pkg/api/meta"
)

// BucketFunc says which bucket a Request's object is in, from the object's
// uid; ok is false when it cannot tell (the object is not in this replica's
// cache).
//
// client-go: none.
type BucketFunc func(req controller.Request) (bucket int, ok bool)

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
// so the guard cannot tell them apart and refuses both. [Tombstones] tells
// them apart: its BucketFromCache finds a deleted object's bucket from the
// uid it had.
func BucketFromCache(store KeyGetter, buckets int) BucketFunc {
	return func(req controller.Request) (int, bool) {
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

// BucketVerdict is a [BucketGuard]'s decision for one key of a bucket.
//
// client-go: none.
type BucketVerdict int

const (
	// BucketRun: the bucket is held, synced, not releasing, freshly
	// renewed; the key runs and counts as in flight until Done.
	BucketRun BucketVerdict = iota
	// BucketNotOurs: not held, or being released: another member
	// reconciles it (or will, once it holds the bucket and its relist
	// brings the key).
	BucketNotOurs
	// BucketNotYet: held, but the cache has not synced the bucket yet: the
	// key came from that very relist and runs once it is done.
	BucketNotYet
	// BucketStale: held, but the last renewal is RenewDeadline old: this
	// member may have lost the Lease without knowing it yet.
	BucketStale
)

func (v BucketVerdict) String() string {
	switch v {
	case BucketRun:
		return "run"
	case BucketNotOurs:
		return "not ours"
	case BucketNotYet:
		return "not synced yet"
	case BucketStale:
		return "renewal stale"
	}
	return "unknown"
}

// bucketState is what a member knows of one bucket.
type bucketState struct {
	// held: this member holds the bucket's Lease (acquired, and not yet
	// released, lost or given up).
	held bool
	// admitted: the cache has synced with the bucket in its selector; keys
	// may run (if not releasing and the renewal is fresh).
	admitted bool
	// releasing: a graceful release has begun; the guard refuses new keys.
	releasing bool
	// lastRenew is when the last successful acquire or renewal was
	// started, on the local monotonic clock.
	lastRenew time.Time
	// inflight counts the bucket's reconciles running now.
	inflight int
}

// reset forgets the bucket's Lease but keeps counting the reconciles still
// running: they were admitted and will end.
func (st *bucketState) reset() { *st = bucketState{inflight: st.inflight} }

// BucketGuard is the reconcile guard of a sharded member: the table of what
// the member may do with each bucket, and the count of each bucket's
// reconciles in flight. The protocol side tells it what happened to a
// bucket's Lease and cache (Gained, Synced, Renewed, Lost, Release,
// CancelRelease); the reconcile side asks it before each key (Admit, then
// Done, or [BucketGuard.Wrap] which does both). One lock covers the whole
// table, so a release that has begun sees every reconcile that was
// admitted, and none is admitted after it.
//
// [Member] runs one; labs/8-sharding has you write it.
//
// client-go: none.
type BucketGuard struct {
	renewDeadline time.Duration
	retryPeriod   time.Duration

	mu    sync.Mutex // guards state
	state []bucketState
}

// NewBucketGuard returns a guard of buckets buckets, none held. A key runs
// only if its bucket's Lease was renewed less than renewDeadline ago; a key
// refused for now is requeued after retryPeriod by Wrap.
func NewBucketGuard(buckets int, renewDeadline, retryPeriod time.Duration) *BucketGuard {
	return &BucketGuard{
		renewDeadline: renewDeadline,
		retryPeriod:   retryPeriod,
		state:         make([]bucketState, max(buckets, 0)),
	}
}

// at returns bucket b's state, or nil for a bucket out of range. Call with
// g.mu held.
func (g *BucketGuard) at(b int) *bucketState {
	if b < 0 || b >= len(g.state) {
		return nil
	}
	return &g.state[b]
}

// Gained records that the bucket's Lease was acquired by an attempt started
// at attempt. Its keys are not admitted until Synced: the cache does not
// hold them yet. A release or a loss before is forgotten; reconciles still
// in flight from an earlier tenure keep being counted.
func (g *BucketGuard) Gained(b int, attempt time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil {
		st.reset()
		st.held, st.lastRenew = true, attempt
	}
}

// Synced records that the cache has synced with the bucket in its
// selector: a held bucket's keys may run from now on.
func (g *BucketGuard) Synced(b int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil && st.held {
		st.admitted = true
	}
}

// Renewed records a successful renewal of a held bucket, by an attempt
// started at attempt (the start, not the end: the Lease's duration runs
// from when the server may have written it). In a [Member]'s ring that is
// its member Lease's renewal, confirmed by a list that still shows the
// bucket's Lease naming it.
func (g *BucketGuard) Renewed(b int, attempt time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil && st.held {
		st.lastRenew = attempt
	}
}

// Lost forgets the bucket: it was not renewed in time or its Lease is held
// by another. Reconciles in flight keep being counted until their Done.
func (g *BucketGuard) Lost(b int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil {
		st.reset()
	}
}

// Release moves a graceful release of a held bucket on. The first call
// stops admitting its keys; each call reports whether the bucket's
// in-flight reconciles have reached 0. When they have, the bucket is
// forgotten (no longer held) and the caller releases its Lease. A bucket
// not held reports true: there is nothing to wait for.
func (g *BucketGuard) Release(b int) (released bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.at(b)
	if st == nil || !st.held {
		return true
	}
	st.releasing = true
	if st.inflight > 0 {
		return false
	}
	st.reset()
	return true
}

// CancelRelease stops a release that has begun: the bucket is ours again
// (the ring changed back), and its keys are admitted again. Keys refused
// during the release were requeued by [BucketGuard.Wrap], so they run at
// their next try.
func (g *BucketGuard) CancelRelease(b int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil {
		st.releasing = false
	}
}

// Admit decides whether a key of bucket b runs now, and on [BucketRun]
// counts it as in flight: the caller must call Done(b) when the reconcile
// ends, however it ends. A bucket out of range is not ours.
func (g *BucketGuard) Admit(b int) BucketVerdict {
	v, _ := g.admit(b)
	return v
}

// admit is Admit that also reports whether a [BucketNotOurs] is a bucket
// still held but being released: its release may yet be cancelled.
func (g *BucketGuard) admit(b int) (v BucketVerdict, releasing bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v = g.verdictLocked(b)
	if v == BucketRun {
		g.state[b].inflight++
	}
	st := g.at(b)
	return v, st != nil && st.held && st.releasing
}

// verdictLocked is Admit's decision, without counting. Call with g.mu held.
func (g *BucketGuard) verdictLocked(b int) BucketVerdict {
	st := g.at(b)
	switch {
	case st == nil || !st.held || st.releasing:
		return BucketNotOurs
	case !st.admitted:
		return BucketNotYet
	case time.Since(st.lastRenew) >= g.renewDeadline:
		return BucketStale
	}
	return BucketRun
}

// Done ends a reconcile that Admit let run.
func (g *BucketGuard) Done(b int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil && st.inflight > 0 {
		st.inflight--
	}
}

// Admits reports whether Admit would run a key of bucket b now, without
// counting one.
func (g *BucketGuard) Admits(b int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.verdictLocked(b) == BucketRun
}

// Held returns, sorted, the buckets held, including those not yet synced
// and those being released.
func (g *BucketGuard) Held() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	var held []int
	for b, st := range g.state {
		if st.held {
			held = append(held, b)
		}
	}
	return held
}

// syncHeld is Synced for a bucket still held and not yet synced; it reports
// whether it admitted the bucket.
func (g *BucketGuard) syncHeld(b int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.at(b)
	if st == nil || !st.held || st.admitted {
		return false
	}
	st.admitted = true
	return true
}

// unsynced reports whether b is held and its keys are not admitted yet.
func (g *BucketGuard) unsynced(b int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.at(b)
	return st != nil && st.held && !st.admitted
}

// isHeld reports whether b is held.
func (g *BucketGuard) isHeld(b int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.at(b)
	return st != nil && st.held
}

// sinceRenew returns how long ago b's last renewal started.
func (g *BucketGuard) sinceRenew(b int) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil {
		return time.Since(st.lastRenew)
	}
	return 0
}

// InFlight returns the number of bucket b's reconciles running now.
func (g *BucketGuard) InFlight(b int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st := g.at(b); st != nil {
		return st.inflight
	}
	return 0
}

// Wrap returns a Reconciler that runs r for a key only when Admit says so
// (bucketOf tells the key's bucket), and calls Done when r returns or
// panics. A refused key is not an error: a key of a bucket not held, or
// whose object is not in the cache, is dropped, since its owner reconciles
// it. A key of a bucket being released is requeued after RetryPeriod: if
// the release is cancelled (the ring gave the bucket back) it runs then,
// and once the bucket is released it is dropped then; dropped at once, an
// update that arrived during a cancelled release would wait for the next
// event. A key of a bucket just gained, whose relist has
// not reached the cache yet, is requeued after RetryPeriod: it came from
// that relist, and nothing else would bring it back once the bucket is
// synced. So is a key refused for a stale renewal, since the renewal may
// yet succeed (if it does not, the bucket is lost and the next try drops
// the key).
func (g *BucketGuard) Wrap(r controller.Reconciler, bucketOf BucketFunc) controller.Reconciler {
	return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		b, ok := bucketOf(req)
		if !ok {
			controller.LoggerFrom(ctx).Debug("shard guard: object not in this replica's cache; not reconciled")
			return controller.Result{}, nil
		}
		switch v, releasing := g.admit(b); {
		case releasing:
			controller.LoggerFrom(ctx).Debug("shard guard: bucket being released; retrying later in case the release is cancelled", "bucket", b)
			return controller.Result{RequeueAfter: g.retryPeriod}, nil
		case v == BucketNotOurs:
			controller.LoggerFrom(ctx).Debug("shard guard: bucket not held by this member; not reconciled", "bucket", b)
			return controller.Result{}, nil
		case v == BucketNotYet:
			controller.LoggerFrom(ctx).Debug("shard guard: bucket gained, cache not synced yet; retrying later", "bucket", b)
			return controller.Result{RequeueAfter: g.retryPeriod}, nil
		case v == BucketStale:
			controller.LoggerFrom(ctx).Debug("shard guard: bucket not renewed within RenewDeadline; retrying later", "bucket", b)
			return controller.Result{RequeueAfter: g.retryPeriod}, nil
		}
		defer g.Done(b)
		return r.Reconcile(ctx, req)
	})
}

// Guard wraps r so that it runs a key only while this member may act on the
// key's bucket (bucketOf tells which): the bucket's Lease is held, the cache
// has synced with it, it is not being released, and its Lease was renewed
// less than RenewDeadline ago on the local monotonic clock. See
// [BucketGuard.Wrap] for what happens to a refused key.
//
// The guard is no fence: a reconcile admitted just before the Lease was lost
// runs to its end. Its writes are stopped only by resourceVersion
// preconditions (an Update of what it read fails with a Conflict once the
// new owner wrote) — see "Sharding" in the package documentation.
func (s *Member) Guard(r controller.Reconciler, bucketOf BucketFunc) controller.Reconciler {
	return s.guard.Wrap(r, bucketOf)
}
