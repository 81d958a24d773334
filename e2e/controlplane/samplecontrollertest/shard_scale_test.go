package samplecontrollertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestShardedSampleControllerScaleThreeToFourToThreeMovesOnlyChangedBuckets
// scales a ring of sharded sample controllers, in this process, over the
// real server: three replicas split the Foos; a fourth joins, and exactly
// the buckets whose owner [sharding.BucketOwners] changes move (most to it,
// a few between the others, which it keeps evenly loaded), each straight
// from its old holder to its new one, while every other bucket's Lease
// keeps its holder throughout; then the fourth
// leaves gracefully (its context ends: it stops admitting, waits for its
// in-flight reconciles, releases), and its buckets go back to the owners the
// ring gives among the three, nothing else moving. No two replicas ever
// reconcile one Foo at once, every Foo stays converged, and the test logs
// how long each move took. It runs on both control planes: with
// ShardedListAndWatch on (the server filters) and off (the client does).
func TestShardedSampleControllerScaleThreeToFourToThreeMovesOnlyChangedBuckets(t *testing.T) {
	t.Run("gate on", func(t *testing.T) { scaleThreeToFourToThree(t, testenv.ControlPlane(t)) })
	t.Run("gate off", func(t *testing.T) { scaleThreeToFourToThree(t, testenv.GateOff(t)) })
}

func scaleThreeToFourToThree(t *testing.T, cp *controlplane.ControlPlane) {
	testenv.InstallFooCRDOn(t, cp)
	ns := testenv.NamespaceOn(t, cp)
	c := testenv.ClientOf(t, cp, sc.NewScheme())
	leases := testenv.ClientOf(t, cp, nil).Resource(sc.LeasesGVR).Namespace(ns)
	const ring = "scale"
	buckets := createRingFoos(t, c, ns, ringFoos)
	j := &ringJournal{open: map[string]int{}, runs: map[string][]ringRun{}}

	three := startRing(t, c, ns, ring, j)
	waitShares(t, three, buckets)
	allReady(t, c, ns, buckets)
	owners3 := sharding.BucketOwners(replicaNames(three), sharding.DefaultBuckets)
	require.Equal(t, owners3, bucketHolders(t, leases, ring), "three replicas: each bucket Lease is held by its ring owner")

	// A fourth joins.
	joinedAt := time.Now()
	fourth := joinRing(t, c, ns, ring, "replica-3", j)
	four := append(slices.Clone(three), fourth)
	owners4 := sharding.BucketOwners(replicaNames(four), sharding.DefaultBuckets)
	var gained, between []int
	for b, o := range owners4 {
		switch {
		case o == fourth.name:
			gained = append(gained, b)
		case o != owners3[b]:
			between = append(between, b) // bounded loads: kept even among the others
		}
	}
	require.Len(t, gained, sharding.DefaultBuckets/4, "the ring gives the newcomer its fair share")
	joined := followMoves(t, leases, ring, four, buckets, owners3, owners4)
	checkMoves(t, "join", joined, owners3, owners4)
	joinReconciled := reconciledByNewOwners(t, j, buckets, owners3, owners4, joinedAt)
	allReady(t, c, ns, buckets)

	// The fourth leaves gracefully.
	leftAt := time.Now()
	fourth.cancel()
	left := followMoves(t, leases, ring, three, buckets, owners4, owners3)
	fourth.stop(t)
	checkMoves(t, "leave", left, owners4, owners3)
	leaveReconciled := reconciledByNewOwners(t, j, buckets, owners4, owners3, leftAt)
	allReady(t, c, ns, buckets)
	assert.Less(t, time.Since(leftAt), ringLeaseDuration,
		"a graceful leave hands its buckets over before their Leases could expire")

	assert.Empty(t, j.overlaps(), "no two replicas reconcile one Foo at once")
	t.Logf("scale 3 -> 4 -> 3 (%d Foos, %d buckets, RetryPeriod %v): replica-3 gained buckets %v, buckets %v moved between the others\n"+
		"join:  Leases moved in %s; every cache settled after %v; every Foo of a moved bucket reconciled by its new holder after %v\n"+
		"leave: Leases moved in %s; every cache settled after %v; every Foo of a moved bucket reconciled by its new holder after %v",
		ringFoos, sharding.DefaultBuckets, ringRetryPeriod, gained, between,
		joined.moveTimes(), joined.settled.Round(time.Millisecond), joinReconciled.Round(time.Millisecond),
		left.moveTimes(), left.settled.Round(time.Millisecond), leaveReconciled.Round(time.Millisecond))
}

// reconciledByNewOwners waits until every Foo of a bucket whose owner
// differs between from and to has been reconciled, after since, by its
// owner in to, and returns how long after since the last one was.
func reconciledByNewOwners(t *testing.T, j *ringJournal, buckets map[string]int, from, to []string, since time.Time) time.Duration {
	t.Helper()
	deadline := since.Add(wait)
	var last time.Time
	for key, b := range buckets {
		if from[b] == to[b] {
			continue
		}
		for {
			at, ok := j.reconciledAfter(key, since, []string{to[b]})
			if ok {
				last = later(last, at)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s (bucket %d) not reconciled by its new holder %s within %v", key, b, to[b], wait)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if last.IsZero() {
		return 0
	}
	return last.Sub(since)
}

func replicaNames(rs []*ringReplica) []string {
	names := make([]string, 0, len(rs))
	for _, r := range rs {
		names = append(names, r.name)
	}
	return names
}

// bucketHolders reads the ring's bucket Leases: bucket → holderIdentity
// ("" for a bucket whose Lease is released or not yet created).
func bucketHolders(t *testing.T, leases *client.ResourceClient, ring string) []string {
	t.Helper()
	out, err := leases.List(t.Context(), metav1.ListOptions{LabelSelector: sharding.RingLabel + "=" + ring})
	require.NoError(t, err)
	holders := make([]string, sharding.DefaultBuckets)
	prefix := ring + "-bucket-"
	for _, l := range out.(*unstructured.UnstructuredList).Items {
		var b int
		if _, err := fmt.Sscanf(strings.TrimPrefix(l.GetName(), prefix), "%d", &b); err != nil || !strings.HasPrefix(l.GetName(), prefix) {
			continue // a member Lease
		}
		holder, _, err := unstructured.NestedString(l.Object, "spec", "holderIdentity")
		require.NoError(t, err)
		require.Less(t, b, len(holders), "bucket Lease %s", l.GetName())
		holders[b] = holder
	}
	return holders
}

// moves is what followMoves saw: per bucket, every holder its Lease had, in
// order (consecutive repeats dropped), and when each appeared, counted from
// the start; when every cache had settled; and each time a replica's Held()
// lacked a bucket that was its before and after.
type moves struct {
	trail   [][]string
	at      [][]time.Duration
	settled time.Duration
	dropped []string
}

// moveTimes lists, for each bucket whose holder changed, when its final
// holder took it.
func (m moves) moveTimes() string {
	var parts []string
	for b, tr := range m.trail {
		if len(tr) > 1 {
			parts = append(parts, fmt.Sprintf("bucket %d %s->%s %v", b, tr[0], tr[len(tr)-1], m.at[b][len(tr)-1].Round(time.Millisecond)))
		}
	}
	if len(parts) == 0 {
		return "(none moved)"
	}
	return strings.Join(parts, ", ")
}

// followMoves polls the bucket Leases, held by from when it is called,
// until each is held by its owner in owners and the live replicas' shares
// have settled (shareReport), and returns every holder each Lease had on
// the way.
func followMoves(t *testing.T, leases *client.ResourceClient, ring string, live []*ringReplica, buckets map[string]int, from, owners []string) moves {
	t.Helper()
	start := time.Now()
	m := moves{trail: make([][]string, len(from)), at: make([][]time.Duration, len(from))}
	for b, h := range from {
		m.trail[b], m.at[b] = []string{h}, []time.Duration{0}
	}
	deadline := start.Add(wait)
	for {
		holders := bucketHolders(t, leases, ring)
		now := time.Since(start)
		for b, h := range holders {
			if n := len(m.trail[b]); n == 0 || m.trail[b][n-1] != h {
				m.trail[b] = append(m.trail[b], h)
				m.at[b] = append(m.at[b], now)
			}
		}
		for _, r := range live {
			held := r.ctrl.ShardMember().Held()
			for b := range owners {
				if from[b] == r.name && owners[b] == r.name && !slices.Contains(held, b) {
					m.dropped = append(m.dropped, fmt.Sprintf("%s let go of bucket %d at %v", r.name, b, now))
				}
			}
		}
		report := shareReport(t, live, buckets)
		if report == "" && slices.Equal(holders, owners) {
			m.settled = now
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ring did not settle within %v: %s; Lease holders %v, want %v", wait, report, holders, owners)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkMoves checks that a bucket whose owner is the same in from and to
// kept its Lease holder, and its place in the holder's Held(), throughout,
// and that one whose owner changed went from its old owner straight to its
// new one (with at most a released Lease, holder "", in between).
func checkMoves(t *testing.T, step string, m moves, from, to []string) {
	t.Helper()
	assert.Empty(t, m.dropped, "%s: no replica lets go of a bucket it keeps", step)
	for b := range to {
		if from[b] == to[b] {
			assert.Equal(t, []string{from[b]}, m.trail[b], "%s: bucket %d stays with %s", step, b, from[b])
			continue
		}
		want := [][]string{{from[b], to[b]}, {from[b], "", to[b]}}
		assert.Contains(t, want, m.trail[b], "%s: bucket %d moves from %s to %s and nowhere else", step, b, from[b], to[b])
	}
}
