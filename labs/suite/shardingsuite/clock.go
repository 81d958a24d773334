package shardingsuite

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller/sharding"
)

// A renew deadline must be measured on the monotonic clock: the wall
// clock is stepped by NTP, by hand, by a leap second, and a guard that
// compares wall readings (attempt.Unix(), attempt.Round(0), attempt.UTC())
// then thinks a fresh Lease stale, or worse, a stale Lease fresh. A
// time.Time from time.Now carries both readings, and time.Since uses the
// monotonic one when there is one. The suite cannot step the machine's
// clock, so it hands the guard attempt times whose wall reading was moved
// and whose monotonic reading was not: what time.Now would have returned
// just before the wall clock was stepped.

// wallStepped returns t with its wall reading moved by d (whole seconds)
// and its monotonic reading left alone. It relies on the layout of
// time.Time (wall, ext, loc) with a monotonic reading, and reports false
// when t has none or the result does not behave as such a time must.
func wallStepped(t time.Time, d time.Duration) (time.Time, bool) {
	const hasMonotonic = 1 << 63
	type layout struct {
		wall uint64
		ext  int64
		loc  *time.Location
	}
	moved := t
	l := (*layout)(unsafe.Pointer(&moved))
	if l.wall&hasMonotonic == 0 {
		return t, false
	}
	l.wall = uint64(int64(l.wall) + int64(d/time.Second)<<30)
	ok := moved.Sub(t) == 0 && moved.Round(0).Sub(t.Round(0)) == d.Truncate(time.Second)
	return moved, ok
}

// monotonicDeadline is RenewDeadlineRunsOnTheMonotonicClock. It runs on
// the real clock: a synctest bubble's clock has no monotonic reading.
func monotonicDeadline(t *testing.T, impl Impl) {
	now := time.Now()
	// The wall clock went forward an hour just after the attempt: on the
	// monotonic clock the renewal is a moment old.
	fresh, ok := wallStepped(now, -time.Hour)
	require.True(t, ok, "grader: cannot build a time whose wall clock was stepped")
	g := impl.New(buckets, renewDeadline, retryPeriod)
	g.Gained(0, fresh)
	g.Synced(0)
	assert.Equal(t, sharding.BucketRun, g.Admit(0), "renewed a moment ago on the monotonic clock (the wall clock jumped an hour ahead since)")
	g.Done(0)
	g.Renewed(0, fresh)
	assert.Equal(t, sharding.BucketRun, g.Admit(0), "Renewed a moment ago on the monotonic clock (the wall clock jumped an hour ahead since)")
	g.Done(0)

	// The wall clock went back an hour just after an attempt RenewDeadline
	// ago: on the monotonic clock the renewal is stale.
	stale, ok := wallStepped(now.Add(-renewDeadline), time.Hour)
	require.True(t, ok, "grader: cannot build a time whose wall clock was stepped")
	g.Renewed(0, stale)
	assert.Equal(t, sharding.BucketStale, g.Admit(0), "renewed RenewDeadline ago on the monotonic clock (the wall clock was set back an hour since)")
	g.Gained(1, stale)
	g.Synced(1)
	assert.Equal(t, sharding.BucketStale, g.Admit(1), "gained RenewDeadline ago on the monotonic clock (the wall clock was set back an hour since)")
}

// cancelReleaseLimits is CancelReleaseOnlyEndsTheRelease.
func cancelReleaseLimits(t *testing.T, impl Impl) {
	// A release that finished gave the Lease away.
	g := running(impl, 0)
	require.True(t, g.Release(0), "nothing in flight")
	g.CancelRelease(0)
	assert.Equal(t, sharding.BucketNotOurs, g.Admit(0), "released, then CancelRelease: the Lease is someone else's")
	assert.Empty(t, g.Held(), "released, then CancelRelease")

	// A release cut short by a loss.
	g = running(impl, 1)
	requireAdmit(t, g, 1)
	require.False(t, g.Release(1))
	g.Lost(1)
	g.CancelRelease(1)
	assert.Equal(t, sharding.BucketNotOurs, g.Admit(1), "lost while releasing, then CancelRelease")
	assert.Empty(t, g.Held(), "lost while releasing, then CancelRelease")
	assert.Equal(t, 1, g.InFlight(1), "CancelRelease does not touch the in-flight count")
	g.Done(1)

	// A bucket regained, not synced yet, released with a reconcile from
	// its earlier tenure still running.
	g = running(impl, 2)
	requireAdmit(t, g, 2)
	g.Lost(2)
	g.Gained(2, time.Now())
	require.False(t, g.Release(2), "a reconcile from before runs")
	g.CancelRelease(2)
	assert.Equal(t, sharding.BucketNotYet, g.Admit(2), "CancelRelease does not sync the bucket")
	assert.Equal(t, []int{2}, g.Held())
	g.Synced(2)
	requireAdmit(t, g, 2)
	assert.Equal(t, 2, g.InFlight(2))

	// A release of a bucket whose renewal went stale meanwhile.
	g = running(impl, 3)
	requireAdmit(t, g, 3)
	require.False(t, g.Release(3))
	time.Sleep(renewDeadline)
	g.CancelRelease(3)
	assert.Equal(t, sharding.BucketStale, g.Admit(3), "CancelRelease renews nothing")
	assert.Equal(t, 1, g.InFlight(3), "CancelRelease does not touch the in-flight count")

	// No release begun; buckets out of range.
	g = running(impl, 0)
	g.CancelRelease(0)
	g.CancelRelease(-1)
	g.CancelRelease(buckets)
	assert.Equal(t, []int{0}, g.Held())
	requireAdmit(t, g, 0)
	assert.Equal(t, 1, g.InFlight(0))
}
