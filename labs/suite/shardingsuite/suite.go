package shardingsuite

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/labs/grade"
)

// Guard is the reconcile guard of one member: what [sharding.BucketGuard]
// does. The protocol side reports what happened to a bucket's Lease and
// cache; the reconcile side asks before each key.
type Guard interface {
	// Gained: the bucket's Lease was acquired by an attempt started at
	// attempt. Its keys wait for Synced.
	Gained(b int, attempt time.Time)
	// Synced: the cache holds the bucket's objects; a held bucket's keys
	// may run.
	Synced(b int)
	// Renewed: the Lease of a held bucket was renewed by an attempt started
	// at attempt.
	Renewed(b int, attempt time.Time)
	// Lost: the Lease was not renewed in time, or another holds it.
	Lost(b int)
	// Release moves a graceful release on: it stops admitting the bucket's
	// keys and reports whether its in-flight reconciles reached 0 (then the
	// bucket is no longer held).
	Release(b int) bool
	// CancelRelease: the bucket is ours again; admit its keys again.
	CancelRelease(b int)
	// Admit decides whether a key of bucket b runs now; on BucketRun it
	// counts one reconcile in flight until Done(b).
	Admit(b int) sharding.BucketVerdict
	// Done ends a reconcile Admit let run.
	Done(b int)
	// Held lists, sorted, the buckets held.
	Held() []int
	// InFlight is the number of bucket b's reconciles running now.
	InFlight(b int) int
	// Wrap runs r for a key only when Admit says so, and always calls Done
	// after; a key not yet runnable is requeued after RetryPeriod.
	Wrap(r controller.Reconciler, bucketOf sharding.BucketFunc) controller.Reconciler
}

// Impl is how an implementation plugs in.
type Impl struct {
	// New returns a guard of buckets buckets, none held: a key runs only if
	// its bucket's Lease was renewed less than renewDeadline ago, and Wrap
	// requeues a key refused for now after retryPeriod.
	New func(buckets int, renewDeadline, retryPeriod time.Duration) Guard
}

// Reference is informerlab's own implementation: what
// controller/sharding/suite_test.go grades, and what labs/8-sharding wires in
// under the labs_reference build tag.
var Reference = Impl{
	New: func(buckets int, renewDeadline, retryPeriod time.Duration) Guard {
		return sharding.NewBucketGuard(buckets, renewDeadline, retryPeriod)
	},
}

const (
	docGuard   = "docs/sharding.md#the-reconcile-guard"
	docGain    = "docs/sharding.md#gaining-a-bucket"
	docRelease = "docs/sharding.md#graceful-release"
	docCrash   = "docs/sharding.md#a-crashed-member"
	docLeases  = "docs/sharding.md#bucket-leases"
	docFence   = "docs/sharding.md#a-lease-is-no-fence"
)

const (
	buckets       = 4
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// running returns a guard whose bucket b is held and synced.
func running(impl Impl, b int) Guard {
	g := impl.New(buckets, renewDeadline, retryPeriod)
	g.Gained(b, time.Now())
	g.Synced(b)
	return g
}

// requireAdmit admits one key of b and fails unless it runs.
func requireAdmit(t *testing.T, g Guard, b int) {
	t.Helper()
	require.Equal(t, sharding.BucketRun, g.Admit(b), "a key of held, synced, fresh bucket %d must run", b)
}

// inBucket is a BucketFunc that puts every key in bucket b.
func inBucket(b int) sharding.BucketFunc {
	return func(controller.Request) (int, bool) { return b, true }
}

// counting is a Reconciler that counts its calls and returns what run
// returns.
type counting struct {
	mu    sync.Mutex
	calls int
	run   func() (controller.Result, error)
}

func (c *counting) Reconcile(context.Context, controller.Request) (controller.Result, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	if c.run == nil {
		return controller.Result{}, nil
	}
	return c.run()
}

func (c *counting) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

var req = controller.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "foo"}}

// Behaviours returns the graded behaviours of the reconcile guard.
func Behaviours(impl Impl) []grade.Behaviour {
	return []grade.Behaviour{
		{
			Name: "UnheldBucketIsRefused",
			Want: "a key of a bucket held by no one here (or out of range) is not ours: Admit says BucketNotOurs and counts nothing",
			Doc:  docGuard,
			Test: func(t *testing.T) {
				g := impl.New(buckets, renewDeadline, retryPeriod)
				for _, b := range []int{0, 3, -1, buckets} {
					assert.Equal(t, sharding.BucketNotOurs, g.Admit(b), "bucket %d, never gained", b)
				}
				assert.Empty(t, g.Held())
				assert.Equal(t, 0, g.InFlight(0))
				g.Synced(1) // a sync of a bucket not held admits nothing
				assert.Equal(t, sharding.BucketNotOurs, g.Admit(1), "bucket 1, synced but never gained")
			},
		},
		{
			Name: "GainedBucketWaitsForSync",
			Want: "a bucket just gained is held but its keys wait (BucketNotYet) until Synced: the cache does not hold its objects yet",
			Doc:  docGain,
			Test: func(t *testing.T) {
				g := impl.New(buckets, renewDeadline, retryPeriod)
				g.Gained(2, time.Now())
				assert.Equal(t, []int{2}, g.Held())
				assert.Equal(t, sharding.BucketNotYet, g.Admit(2), "gained, not synced")
				assert.Equal(t, 0, g.InFlight(2), "a key refused is not in flight")
				g.Synced(2)
				requireAdmit(t, g, 2)
				assert.Equal(t, 1, g.InFlight(2))
				g.Done(2)
				assert.Equal(t, 0, g.InFlight(2))
				assert.Equal(t, sharding.BucketNotOurs, g.Admit(1), "another bucket is still not ours")
			},
		},
		{
			Name: "StaleRenewalIsRefused",
			Want: "a key runs only if the bucket's Lease was renewed less than RenewDeadline ago (BucketStale otherwise), and runs again after Renewed",
			Doc:  docLeases,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					g := running(impl, 0)
					time.Sleep(renewDeadline - time.Nanosecond)
					requireAdmit(t, g, 0)
					g.Done(0)
					time.Sleep(time.Nanosecond)
					assert.Equal(t, sharding.BucketStale, g.Admit(0), "RenewDeadline after the acquire, with no renewal")
					assert.Equal(t, 0, g.InFlight(0))
					g.Renewed(0, time.Now())
					requireAdmit(t, g, 0)
					g.Done(0)
				})
			},
		},
		{
			Name: "RenewalCountsFromTheAttempt",
			Want: "Gained and Renewed time the Lease from when the attempt started, not from when it is reported: a slow renewal leaves less time",
			Doc:  docLeases,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					g := running(impl, 1)
					attempt := time.Now()
					time.Sleep(3 * time.Second) // the renewal's request took 3s
					g.Renewed(1, attempt)
					time.Sleep(renewDeadline - 3*time.Second)
					assert.Equal(t, sharding.BucketStale, g.Admit(1), "RenewDeadline after the renewal attempt started")
					start := time.Now()
					time.Sleep(time.Second)
					g.Gained(1, start)
					g.Synced(1)
					time.Sleep(renewDeadline - time.Second)
					assert.Equal(t, sharding.BucketStale, g.Admit(1), "RenewDeadline after the acquire attempt started")
				})
			},
		},
		{
			Name: "RenewDeadlineRunsOnTheMonotonicClock",
			Want: "the time since a renewal is measured on the monotonic clock (time.Since of the attempt as given, never its Unix(), Round(0) or UTC()): a wall clock stepped an hour either way changes nothing",
			Doc:  docLeases,
			Test: func(t *testing.T) { monotonicDeadline(t, impl) },
		},
		{
			Name: "ReleaseWaitsForInFlight",
			Want: "Release reports true only once every admitted reconcile of the bucket called Done; then the bucket is no longer held",
			Doc:  docRelease,
			Test: func(t *testing.T) {
				g := running(impl, 3)
				requireAdmit(t, g, 3)
				requireAdmit(t, g, 3)
				assert.False(t, g.Release(3), "two reconciles in flight")
				assert.Equal(t, []int{3}, g.Held(), "held until released")
				g.Done(3)
				assert.False(t, g.Release(3), "one reconcile in flight")
				g.Done(3)
				assert.True(t, g.Release(3), "none in flight")
				assert.Empty(t, g.Held())
				assert.Equal(t, sharding.BucketNotOurs, g.Admit(3), "released")
			},
		},
		{
			Name: "ReleasingBucketRefusesNewKeys",
			Want: "once a release has begun the bucket's new keys are not ours (BucketNotOurs), so the in-flight count can only fall",
			Doc:  docRelease,
			Test: func(t *testing.T) {
				g := running(impl, 0)
				requireAdmit(t, g, 0)
				require.False(t, g.Release(0), "one reconcile in flight")
				assert.Equal(t, sharding.BucketNotOurs, g.Admit(0), "a new key while releasing")
				assert.Equal(t, 1, g.InFlight(0))
				g.Done(0)
				assert.True(t, g.Release(0))
			},
		},
		{
			Name: "CancelledReleaseAdmitsAgain",
			Want: "CancelRelease ends a release that has begun (the bucket is ours again): its keys run again, and a later release starts over",
			Doc:  docRelease,
			Test: func(t *testing.T) {
				g := running(impl, 2)
				requireAdmit(t, g, 2)
				require.False(t, g.Release(2))
				g.CancelRelease(2)
				requireAdmit(t, g, 2)
				assert.Equal(t, 2, g.InFlight(2))
				g.Done(2)
				g.Done(2)
				assert.Equal(t, []int{2}, g.Held(), "a cancelled release keeps the bucket")
				assert.True(t, g.Release(2))
			},
		},
		{
			Name: "CancelReleaseOnlyEndsTheRelease",
			Want: "CancelRelease only stops a release that has begun: it cannot bring back a bucket whose release finished or that was lost, sync a bucket not synced, renew a stale Lease or touch the in-flight count; with no release begun it changes nothing",
			Doc:  docRelease,
			Test: func(t *testing.T) { grade.Bubble(t, func(t *testing.T) { cancelReleaseLimits(t, impl) }) },
		},
		{
			Name: "LostBucketIsRefusedAndRegainedStartsFresh",
			Want: "Lost refuses the bucket at once; gained again, it waits for a new sync and is not releasing, whatever it was before",
			Doc:  docCrash,
			Test: func(t *testing.T) {
				// Begin a release with a key in flight, then lose the bucket.
				g := running(impl, 1)
				requireAdmit(t, g, 1)
				require.False(t, g.Release(1))
				g.Lost(1)
				assert.Empty(t, g.Held())
				assert.Equal(t, sharding.BucketNotOurs, g.Admit(1), "lost")
				g.Done(1)
				g.Gained(1, time.Now())
				assert.Equal(t, sharding.BucketNotYet, g.Admit(1), "regained: its cache must sync again")
				g.Synced(1)
				assert.Equal(t, sharding.BucketRun, g.Admit(1), "regained and synced: no release is pending")
				g.Done(1)
			},
		},
		{
			Name: "LostBucketKeepsCountingInFlight",
			Want: "a reconcile admitted before the bucket was lost is still counted until its Done, so a release after regaining the bucket waits for it",
			Doc:  docCrash,
			Test: func(t *testing.T) {
				g := running(impl, 0)
				requireAdmit(t, g, 0)
				g.Lost(0)
				assert.Equal(t, 1, g.InFlight(0), "lost, but the reconcile is still running")
				g.Gained(0, time.Now())
				g.Synced(0)
				assert.False(t, g.Release(0), "the reconcile from before the loss is still in flight")
				g.Done(0)
				assert.Equal(t, 0, g.InFlight(0))
				assert.True(t, g.Release(0))
			},
		},
		{
			Name: "InFlightIsCountedPerBucket",
			Want: "each bucket counts its own reconciles: a Done of one bucket never ends another's, and a release waits only for its own bucket's",
			Doc:  docRelease,
			Test: func(t *testing.T) {
				g := running(impl, 0)
				g.Gained(1, time.Now())
				g.Synced(1)
				requireAdmit(t, g, 0)
				requireAdmit(t, g, 0)
				requireAdmit(t, g, 1)
				assert.Equal(t, 2, g.InFlight(0), "bucket 0")
				assert.Equal(t, 1, g.InFlight(1), "bucket 1")
				assert.Equal(t, 0, g.InFlight(2), "bucket 2, never gained")

				assert.False(t, g.Release(1), "bucket 1's reconcile runs")
				g.Done(0)
				assert.Equal(t, 1, g.InFlight(1), "a Done of bucket 0 is not bucket 1's")
				assert.False(t, g.Release(1), "bucket 1's own reconcile still runs")
				g.Done(1)
				assert.True(t, g.Release(1), "bucket 1 has nothing in flight, whatever bucket 0 has")
				assert.Equal(t, 1, g.InFlight(0), "bucket 0 still runs one")
				assert.False(t, g.Release(0), "bucket 0's last reconcile runs")
				g.Done(0)
				assert.True(t, g.Release(0))
			},
		},
		{
			Name: "WrapRunsAdmittedKeysOnly",
			Want: "the wrapped Reconciler runs a key of a held, synced bucket (counted in flight while it runs) and drops, unrun, keys of buckets not ours or whose object is not cached",
			Doc:  docGuard,
			Test: func(t *testing.T) {
				g := running(impl, 1)
				var inflight int
				r := &counting{}
				r.run = func() (controller.Result, error) {
					inflight = g.InFlight(1)
					return controller.Result{RequeueAfter: time.Minute}, nil
				}
				res, err := g.Wrap(r, inBucket(1)).Reconcile(context.Background(), req)
				require.NoError(t, err)
				assert.Equal(t, controller.Result{RequeueAfter: time.Minute}, res, "the reconciler's result, passed through")
				assert.Equal(t, 1, r.Calls())
				assert.Equal(t, 1, inflight, "in flight while it runs")
				assert.Equal(t, 0, g.InFlight(1), "done after")

				res, err = g.Wrap(r, inBucket(2)).Reconcile(context.Background(), req)
				require.NoError(t, err)
				assert.Equal(t, controller.Result{}, res, "a key not ours is dropped: no error, no requeue")
				notCached := func(controller.Request) (int, bool) { return 1, false }
				res, err = g.Wrap(r, notCached).Reconcile(context.Background(), req)
				require.NoError(t, err)
				assert.Equal(t, controller.Result{}, res, "a key whose object is not cached is dropped")
				assert.Equal(t, 1, r.Calls(), "dropped keys never reach the reconciler")
			},
		},
		{
			Name: "WrapRequeuesKeysNotRunnableYet",
			Want: "a key refused as BucketNotYet or BucketStale is requeued after RetryPeriod (no error), since nothing else would bring it back",
			Doc:  docGain,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					g := impl.New(buckets, renewDeadline, retryPeriod)
					g.Gained(0, time.Now())
					r := &counting{}
					res, err := g.Wrap(r, inBucket(0)).Reconcile(context.Background(), req)
					require.NoError(t, err)
					assert.Equal(t, controller.Result{RequeueAfter: retryPeriod}, res, "gained, not synced")
					g.Synced(0)
					time.Sleep(renewDeadline)
					res, err = g.Wrap(r, inBucket(0)).Reconcile(context.Background(), req)
					require.NoError(t, err)
					assert.Equal(t, controller.Result{RequeueAfter: retryPeriod}, res, "renewal stale")
					assert.Equal(t, 0, r.Calls())
					assert.Equal(t, 0, g.InFlight(0))
				})
			},
		},
		{
			Name: "WrapEndsInFlightOnErrorAndPanic",
			Want: "a reconcile that fails or panics is done too: its error (or panic) goes on, and the in-flight count falls back, so a release can finish",
			Doc:  docRelease,
			Test: func(t *testing.T) {
				g := running(impl, 2)
				boom := errors.New("boom")
				failing := &counting{run: func() (controller.Result, error) { return controller.Result{}, boom }}
				_, err := g.Wrap(failing, inBucket(2)).Reconcile(context.Background(), req)
				require.ErrorIs(t, err, boom)
				assert.Equal(t, 0, g.InFlight(2), "after an error")

				panicking := &counting{run: func() (controller.Result, error) { panic("reconciler bug") }}
				func() {
					defer func() {
						assert.Equal(t, "reconciler bug", recover(), "the panic goes on to the worker")
					}()
					_, _ = g.Wrap(panicking, inBucket(2)).Reconcile(context.Background(), req)
				}()
				assert.Equal(t, 0, g.InFlight(2), "after a panic")
				assert.True(t, g.Release(2), "nothing in flight")
			},
		},
		{
			Name: "GuardIsSafeForConcurrentUse",
			Want: "Admit, Done, Release and Renewed may be called from many goroutines at once (every worker, and the protocol's goroutine)",
			Doc:  docGuard,
			Test: func(t *testing.T) {
				g := running(impl, 0)
				g.Gained(1, time.Now())
				g.Synced(1)
				var dones []<-chan struct{}
				for w := range 8 {
					b := w % 2
					dones = append(dones, grade.Go(t, func() {
						for range 200 {
							if g.Admit(b) == sharding.BucketRun {
								g.Done(b)
							}
							g.Renewed(b, time.Now())
							_ = g.InFlight(b)
						}
					}))
				}
				dones = append(dones, grade.Go(t, func() {
					for range 200 {
						_ = g.Held()
						_ = g.Release(1)
						g.CancelRelease(1)
					}
				}))
				for _, d := range dones {
					<-d
				}
				assert.Equal(t, 0, g.InFlight(0))
				assert.Equal(t, 0, g.InFlight(1))
				assert.True(t, g.Release(0))
			},
		},
		{
			Name: "ReleaseNeverOverlapsARunningKey",
			Want: "a release never reports true while an admitted reconcile of the bucket runs, and no key runs after it until the bucket is gained again: Admit checks and counts under one lock (the grader gains and releases a bucket thousands of times under two workers, for 3 s, and watches)",
			Doc:  docGuard,
			Test: func(t *testing.T) { releaseNeverOverlaps(t, impl) },
		},
		{
			Name: "AdmittedReconcileRunsToItsEnd",
			Want: "the guard is no fence: losing the bucket does not stop a reconcile already admitted; it runs to its end and is counted until then",
			Doc:  docFence,
			Test: func(t *testing.T) {
				g := running(impl, 3)
				entered, proceed := make(chan struct{}), make(chan struct{})
				r := &counting{run: func() (controller.Result, error) {
					close(entered)
					<-proceed
					return controller.Result{}, nil
				}}
				done := grade.Go(t, func() {
					_, err := g.Wrap(r, inBucket(3)).Reconcile(context.Background(), req)
					assert.NoError(t, err)
				})
				select {
				case <-entered:
				case <-done:
					return
				}
				g.Lost(3)
				assert.Equal(t, 1, g.InFlight(3), "lost while the reconcile runs")
				close(proceed)
				<-done
				assert.Equal(t, 0, g.InFlight(3))
				assert.Equal(t, 1, r.Calls())
			},
		},
	}
}
