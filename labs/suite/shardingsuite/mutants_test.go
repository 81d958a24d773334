package shardingsuite_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/shardingsuite"
)

// catalogue is the mistakes a learner plausibly makes writing lab 8, each
// with the behaviours that must report it. The wrong code is in learnerGuard
// below, behind `g.mistake == "<name>"`: the guard a learner writes from the
// README's hints, right but for that one mistake.
var catalogue = []grade.Mistake{
	{Name: "admit-unheld", What: "Admit runs a key of a bucket nobody here holds, as long as it is not being released",
		Catches: []string{"UnheldBucketIsRefused"}},
	{Name: "admit-before-sync", What: "Admit runs the keys of a bucket as soon as its Lease is gained, before the cache synced it",
		Catches: []string{"GainedBucketWaitsForSync", "LostBucketIsRefusedAndRegainedStartsFresh", "WrapRequeuesKeysNotRunnableYet"}},
	{Name: "no-renew-check", What: "Admit never looks at when the Lease was last renewed",
		Catches: []string{"StaleRenewalIsRefused", "RenewalCountsFromTheAttempt", "WrapRequeuesKeysNotRunnableYet"}},
	{Name: "renew-at-report", What: "Gained and Renewed take time.Now() when they are called instead of the attempt's start",
		Catches: []string{"RenewalCountsFromTheAttempt"}},
	{Name: "release-ignores-inflight", What: "Release hands the bucket over at once, whatever is still running",
		Catches: []string{"ReleaseWaitsForInFlight", "LostBucketKeepsCountingInFlight"}},
	{Name: "release-keeps-admitting", What: "Release waits for the in-flight count but keeps admitting new keys meanwhile",
		Catches: []string{"ReleasingBucketRefusesNewKeys"}},
	{Name: "cancel-keeps-releasing", What: "CancelRelease does nothing, so a release that did not finish leaves the bucket refusing its keys",
		Catches: []string{"CancelledReleaseAdmitsAgain"}},
	{Name: "flip-held-only", What: "Lost and Gained only flip held, so a bucket regained after a loss is still releasing and still counts as synced",
		Catches: []string{"LostBucketIsRefusedAndRegainedStartsFresh"}},
	{Name: "reset-forgets-inflight", What: "Lost and Gained reset the whole bucket, in-flight count included",
		Catches: []string{"LostBucketKeepsCountingInFlight", "AdmittedReconcileRunsToItsEnd"}},
	{Name: "wrap-ignores-not-cached", What: "Wrap ignores bucketOf's ok and admits the key by the bucket number it got",
		Catches: []string{"WrapRunsAdmittedKeysOnly"}},
	{Name: "wrap-drops-not-yet", What: "Wrap drops every refused key, so keys of a bucket not synced yet are never reconciled",
		Catches: []string{"WrapRequeuesKeysNotRunnableYet"}},
	{Name: "done-skipped-on-error", What: "Wrap calls Done only when the reconcile succeeded",
		Catches: []string{"WrapEndsInFlightOnErrorAndPanic"}},
	{Name: "done-not-deferred", What: "Wrap calls Done after Reconcile returns instead of deferring it, so a panic leaves the count up",
		Catches: []string{"WrapEndsInFlightOnErrorAndPanic"}},
	{Name: "no-lock", What: "the guard's table has no lock", NeedsRace: true,
		Catches: []string{"GuardIsSafeForConcurrentUse"}},
	// A stress behaviour: it sees this window in most runs, fewer on a
	// loaded machine (docs/labs.md), so the catalogue gives it five.
	{Name: "admit-two-sections", What: "Admit checks the bucket under the lock, lets go of it, and takes it again to count the key in flight",
		Catches: []string{"ReleaseNeverOverlapsARunningKey"}, Tries: 5},
	{Name: "one-inflight-counter", What: "one in-flight counter serves every bucket",
		Catches: []string{"InFlightIsCountedPerBucket"}},
	{Name: "cancel-restores-bucket", What: "CancelRelease makes the bucket held, synced and freshly renewed again, whatever happened to it",
		Catches: []string{"CancelReleaseOnlyEndsTheRelease"}},
	{Name: "renew-wall-clock", What: "Gained and Renewed keep the attempt in UTC, which drops its monotonic reading, so the deadline is measured on the wall clock",
		Catches: []string{"RenewDeadlineRunsOnTheMonotonicClock"}},
}

// learnerBucket is one bucket's row of Hint 1.
type learnerBucket struct {
	held, synced, releasing bool
	lastRenew               time.Time
	inflight                int
}

// learnerGuard is the guard of the README's hints.
type learnerGuard struct {
	mistake       string
	renewDeadline time.Duration
	retryPeriod   time.Duration
	mu            sync.Mutex // guards buckets
	buckets       []learnerBucket
	shared        int // the one counter of the one-inflight-counter mistake
}

func (g *learnerGuard) lock() func() {
	if g.mistake == "no-lock" {
		return func() {}
	}
	g.mu.Lock()
	return g.mu.Unlock
}

// at returns b's row, or nil out of range.
func (g *learnerGuard) at(b int) *learnerBucket {
	if b < 0 || b >= len(g.buckets) {
		return nil
	}
	return &g.buckets[b]
}

// reset is Hint 3's reset: every flag back to false, in flight kept.
func (g *learnerGuard) reset(row *learnerBucket) {
	if g.mistake == "reset-forgets-inflight" {
		*row = learnerBucket{}
		return
	}
	*row = learnerBucket{inflight: row.inflight}
}

func (g *learnerGuard) stamp(attempt time.Time) time.Time {
	switch g.mistake {
	case "renew-at-report":
		return time.Now()
	case "renew-wall-clock":
		return attempt.UTC()
	}
	return attempt
}

func (g *learnerGuard) Gained(b int, attempt time.Time) {
	defer g.lock()()
	row := g.at(b)
	if row == nil {
		return
	}
	if g.mistake != "flip-held-only" {
		g.reset(row)
	}
	row.held, row.lastRenew = true, g.stamp(attempt)
}

func (g *learnerGuard) Synced(b int) {
	defer g.lock()()
	if row := g.at(b); row != nil && row.held {
		row.synced = true
	}
}

func (g *learnerGuard) Renewed(b int, attempt time.Time) {
	defer g.lock()()
	if row := g.at(b); row != nil && row.held {
		row.lastRenew = g.stamp(attempt)
	}
}

func (g *learnerGuard) Lost(b int) {
	defer g.lock()()
	row := g.at(b)
	switch {
	case row == nil:
	case g.mistake == "flip-held-only":
		row.held = false
	default:
		g.reset(row)
	}
}

func (g *learnerGuard) Release(b int) bool {
	defer g.lock()()
	row := g.at(b)
	if row == nil || !row.held {
		return true
	}
	if g.mistake != "release-keeps-admitting" {
		row.releasing = true
	}
	if g.inflight(b) > 0 && g.mistake != "release-ignores-inflight" {
		return false
	}
	g.reset(row)
	return true
}

func (g *learnerGuard) CancelRelease(b int) {
	defer g.lock()()
	row := g.at(b)
	if row == nil || g.mistake == "cancel-keeps-releasing" {
		return
	}
	row.releasing = false
	if g.mistake == "cancel-restores-bucket" {
		row.held, row.synced, row.lastRenew = true, true, time.Now()
	}
}

func (g *learnerGuard) Admit(b int) sharding.BucketVerdict {
	if g.mistake == "admit-two-sections" {
		v := g.verdict(b)
		if v == sharding.BucketRun {
			defer g.lock()()
			g.at(b).inflight++
		}
		return v
	}
	defer g.lock()()
	v := g.verdictLocked(b)
	if v == sharding.BucketRun {
		g.count(b, 1)
	}
	return v
}

// verdict is verdictLocked under a lock section of its own.
func (g *learnerGuard) verdict(b int) sharding.BucketVerdict {
	defer g.lock()()
	return g.verdictLocked(b)
}

// count adds delta to b's in-flight count (to the one counter of every
// bucket, with the one-inflight-counter mistake). Call with g.mu held.
func (g *learnerGuard) count(b, delta int) {
	if g.mistake == "one-inflight-counter" {
		g.shared += delta
		return
	}
	g.at(b).inflight += delta
}

// inflight is b's in-flight count. Call with g.mu held.
func (g *learnerGuard) inflight(b int) int {
	if g.mistake == "one-inflight-counter" {
		return g.shared
	}
	return g.at(b).inflight
}

func (g *learnerGuard) verdictLocked(b int) sharding.BucketVerdict {
	row := g.at(b)
	switch {
	case row == nil:
		return sharding.BucketNotOurs
	case row.releasing:
		return sharding.BucketNotOurs
	case !row.held && g.mistake != "admit-unheld":
		return sharding.BucketNotOurs
	case !row.synced && g.mistake != "admit-before-sync" && g.mistake != "admit-unheld":
		return sharding.BucketNotYet
	case time.Since(row.lastRenew) >= g.renewDeadline && g.mistake != "no-renew-check" && g.mistake != "admit-unheld":
		return sharding.BucketStale
	}
	return sharding.BucketRun
}

func (g *learnerGuard) Done(b int) {
	defer g.lock()()
	if row := g.at(b); row != nil && g.inflight(b) > 0 {
		g.count(b, -1)
	}
}

func (g *learnerGuard) Held() []int {
	defer g.lock()()
	var held []int
	for b, row := range g.buckets {
		if row.held {
			held = append(held, b)
		}
	}
	return slices.Clip(held)
}

func (g *learnerGuard) InFlight(b int) int {
	defer g.lock()()
	if row := g.at(b); row != nil {
		return g.inflight(b)
	}
	return 0
}

func (g *learnerGuard) Wrap(r controller.Reconciler, bucketOf sharding.BucketFunc) controller.Reconciler {
	return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		b, ok := bucketOf(req)
		if !ok && g.mistake != "wrap-ignores-not-cached" {
			return controller.Result{}, nil
		}
		switch g.Admit(b) {
		case sharding.BucketRun:
		case sharding.BucketNotYet, sharding.BucketStale:
			if g.mistake == "wrap-drops-not-yet" {
				return controller.Result{}, nil
			}
			return controller.Result{RequeueAfter: g.retryPeriod}, nil
		default:
			return controller.Result{}, nil
		}
		switch g.mistake {
		case "done-skipped-on-error":
			res, err := r.Reconcile(ctx, req)
			if err == nil {
				g.Done(b)
			}
			return res, err
		case "done-not-deferred":
			res, err := r.Reconcile(ctx, req)
			g.Done(b)
			return res, err
		}
		defer g.Done(b)
		return r.Reconcile(ctx, req)
	})
}

// learnerImpl is the learner's guard with mistake ("" for none).
func learnerImpl(mistake string) shardingsuite.Impl {
	return shardingsuite.Impl{
		New: func(buckets int, renewDeadline, retryPeriod time.Duration) shardingsuite.Guard {
			return &learnerGuard{
				mistake:       mistake,
				renewDeadline: renewDeadline,
				retryPeriod:   retryPeriod,
				buckets:       make([]learnerBucket, buckets),
			}
		},
	}
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, shardingsuite.Behaviours(learnerImpl(name)))
	}
}

func TestLearnerGuardWithoutMistakePasses(t *testing.T) {
	grade.Reference(t, shardingsuite.Behaviours(learnerImpl("")))
}

func TestSuiteCatchesEveryMistake(t *testing.T) {
	grade.CatchesMistakes(t, "TestHelperMutant", catalogue)
}
