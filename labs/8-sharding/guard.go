package shardinglab

import (
	"time"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/labs/grade"
)

// Guard is the reconcile guard of one member of a ring: for each of its
// buckets, whether the member holds its Lease, whether the cache has synced
// it, whether a release has begun, when the Lease was last renewed, and how
// many of its reconciles are running now. It is safe for concurrent use:
// every worker calls Admit and Done, and the protocol's goroutine calls the
// rest.
type Guard struct {
	// Your fields here.
}

// NewGuard returns a guard of buckets buckets, none held. A key runs only if
// its bucket's Lease was renewed less than renewDeadline ago; Wrap requeues a
// key refused for now after retryPeriod.
func NewGuard(buckets int, renewDeadline, retryPeriod time.Duration) *Guard {
	panic(grade.NotImplemented("NewGuard"))
}

// Gained records that bucket b's Lease was acquired by an attempt that
// started at attempt. Its keys wait (BucketNotYet) until Synced(b). Whatever
// the bucket was before (releasing, synced) is forgotten, but reconciles
// still running from before keep being counted.
func (g *Guard) Gained(b int, attempt time.Time) {
	panic(grade.NotImplemented("Guard.Gained"))
}

// Synced records that the cache holds bucket b's objects: if b is held, its
// keys may run from now on.
func (g *Guard) Synced(b int) {
	panic(grade.NotImplemented("Guard.Synced"))
}

// Renewed records that held bucket b's Lease was renewed by an attempt that
// started at attempt.
func (g *Guard) Renewed(b int, attempt time.Time) {
	panic(grade.NotImplemented("Guard.Renewed"))
}

// Lost forgets bucket b at once: its Lease was not renewed in time or is
// held by another. Reconciles still running keep being counted until Done.
func (g *Guard) Lost(b int) {
	panic(grade.NotImplemented("Guard.Lost"))
}

// Release moves a graceful release of bucket b on. From the first call, b's
// new keys are refused (BucketNotOurs). It reports whether b's in-flight
// reconciles have reached 0; when they have, b is no longer held (the
// caller then releases the Lease). A bucket not held reports true.
func (g *Guard) Release(b int) bool {
	panic(grade.NotImplemented("Guard.Release"))
}

// CancelRelease ends a release of bucket b that has begun: b is ours again
// and its keys run again.
func (g *Guard) CancelRelease(b int) {
	panic(grade.NotImplemented("Guard.CancelRelease"))
}

// Admit decides whether a key of bucket b runs now:
//
//   - BucketNotOurs: b is not held (or out of range), or is being released;
//   - BucketNotYet: b is held but not synced;
//   - BucketStale: b is held and synced, but its last renewal started
//     renewDeadline ago or more;
//   - BucketRun: otherwise. The key counts as in flight until Done(b).
func (g *Guard) Admit(b int) sharding.BucketVerdict {
	panic(grade.NotImplemented("Guard.Admit"))
}

// Done ends a reconcile of bucket b that Admit let run.
func (g *Guard) Done(b int) {
	panic(grade.NotImplemented("Guard.Done"))
}

// Held returns, sorted, the buckets held (synced or not, releasing or not).
func (g *Guard) Held() []int {
	panic(grade.NotImplemented("Guard.Held"))
}

// InFlight returns the number of bucket b's reconciles running now.
func (g *Guard) InFlight(b int) int {
	panic(grade.NotImplemented("Guard.InFlight"))
}

// Wrap returns a Reconciler that asks bucketOf for a key's bucket and:
//
//   - drops the key (Result{}, nil) when bucketOf cannot tell, or Admit says
//     BucketNotOurs;
//   - requeues it after retryPeriod (Result{RequeueAfter: retryPeriod}, nil)
//     when Admit says BucketNotYet or BucketStale;
//   - otherwise runs r, and calls Done however r ends: a result, an error,
//     or a panic (which goes on to the caller).
func (g *Guard) Wrap(r controller.Reconciler, bucketOf sharding.BucketFunc) controller.Reconciler {
	panic(grade.NotImplemented("Guard.Wrap"))
}
