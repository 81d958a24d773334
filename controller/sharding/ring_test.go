package sharding_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/controller/sharding"
)

// loads counts each member's buckets in owners.
func loads(owners []string, members []string) []int {
	out := make([]int, len(members))
	for _, o := range owners {
		if i := slices.Index(members, o); i >= 0 {
			out[i]++
		}
	}
	return out
}

// TestBucketOwnersGivesEveryMemberItsFairShare: whatever the members'
// names, each holds ⌊B/N⌋ or ⌈B/N⌉ buckets; the order they are given in
// does not matter; with no members no bucket has an owner.
// Diagram: none (who owns step 9). client-go: none; bounded-load consistent hashing (Mirrokni, Thorup, Zadimoghaddam).
func TestBucketOwnersGivesEveryMemberItsFairShare(t *testing.T) {
	three := []string{"replica-0", "replica-1", "replica-2"}
	owners := sharding.BucketOwners(three, 16)
	assert.Equal(t, owners, sharding.BucketOwners([]string{"replica-2", "replica-0", "replica-1"}, 16), "order does not matter")
	t.Logf("3 members, 16 buckets: %v (rendezvous alone: %v)", loads(owners, three), loads(sharding.PlainOwners(three, 16), three))
	assert.ElementsMatch(t, []int{6, 5, 5}, loads(owners, three))

	for _, c := range []struct{ members, buckets int }{{1, 16}, {2, 16}, {5, 16}, {7, 16}, {16, 16}, {20, 16}, {3, 1}, {8, 1024}} {
		var names []string
		for i := range c.members {
			names = append(names, fmt.Sprintf("m-%d", i))
		}
		for _, l := range loads(sharding.BucketOwners(names, c.buckets), names) {
			assert.GreaterOrEqual(t, l, c.buckets/c.members, "%d members, %d buckets", c.members, c.buckets)
			assert.LessOrEqual(t, l, (c.buckets+c.members-1)/c.members, "%d members, %d buckets", c.members, c.buckets)
		}
	}
	assert.Equal(t, []string{"", ""}, sharding.BucketOwners(nil, 2), "no members, no owners")
}

// minMoves is the fewest buckets that must change owner to go from owners
// (over before) to a split of buckets over after in which each member
// holds ⌊B/N⌋ or ⌈B/N⌉: the ⌈B/N⌉ shares go to the members that held the
// most, and each keeps as many of its buckets as its new share allows.
func minMoves(owners []string, after []string, buckets int) int {
	held := map[string]int{}
	for _, o := range owners {
		held[o]++
	}
	counts := make([]int, len(after))
	for i, m := range after {
		counts[i] = held[m]
	}
	slices.SortFunc(counts, func(a, b int) int { return b - a })
	floor, extra := buckets/len(after), buckets%len(after)
	kept := 0
	for i, c := range counts {
		share := floor
		if i < extra {
			share++
		}
		kept += min(c, share)
	}
	return buckets - kept
}

func moved(a, b []string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// TestBucketOwnersSplitsEvenlyInEveryRing measures the map over 10,000 rings
// of random member names for each N = 2..8 (a fixed seed, so the figures
// are the same on every run), for 16 and 64 buckets: the fullest member
// against its fair share ⌈B/N⌉, in the worst ring, for bounded loads and for
// plain rendezvous hashing; and the buckets that change owner when a
// member joins (N → N+1) or one leaves (N → N−1), on average, against the
// fewest an even split allows. The fullest member never holds more than
// its fair share; a join or a leave moves, on average, at most one fair
// share of the smaller ring more than the minimum (0 to 4.5 buckets more,
// measured).
// Diagram: none (who owns step 9). client-go: none; bounded-load consistent hashing (Mirrokni, Thorup, Zadimoghaddam).
func TestBucketOwnersSplitsEvenlyInEveryRing(t *testing.T) {
	const rings = 10000
	rnd := rand.New(rand.NewPCG(16, 64))
	name := func() string { return fmt.Sprintf("replica-%08x", rnd.Uint32()) }
	var table strings.Builder
	table.WriteString("| B | N | fair ⌈B/N⌉ | fullest/fair, worst ring | rendezvous alone: fullest/fair, mean / worst | moved on a join: mean (minimum) | moved on a leave: mean (minimum) |\n|---|---|---|---|---|---|---|\n")
	for _, buckets := range []int{16, 64} {
		for n := 2; n <= 8; n++ {
			fair := (buckets + n - 1) / n
			var worst, plainWorst, plainSum float64
			var join, joinMin, leave, leaveMin int
			for range rings {
				members := make([]string, n+1)
				for i := range members {
					members[i] = name()
				}
				ring, newcomer := members[:n], members
				owners := sharding.BucketOwners(ring, buckets)
				worst = max(worst, float64(slices.Max(loads(owners, ring)))/float64(fair))
				plain := float64(slices.Max(loads(sharding.PlainOwners(ring, buckets), ring))) / float64(fair)
				plainWorst, plainSum = max(plainWorst, plain), plainSum+plain

				join += moved(owners, sharding.BucketOwners(newcomer, buckets))
				joinMin += minMoves(owners, newcomer, buckets)
				rest := ring[1:]
				leave += moved(owners, sharding.BucketOwners(rest, buckets))
				leaveMin += minMoves(owners, rest, buckets)
			}
			assert.LessOrEqual(t, worst, 1.0, "B=%d N=%d: the fullest member holds at most its fair share, in every ring", buckets, n)
			assert.LessOrEqual(t, join, joinMin+fair*rings, "B=%d N=%d: a join moves, on average, at most a fair share more than the minimum", buckets, n)
			assert.LessOrEqual(t, leave, leaveMin+(buckets+n-2)/(n-1)*rings, "B=%d N=%d: a leave moves, on average, at most a fair share (of N-1) more than the minimum", buckets, n)
			fmt.Fprintf(&table, "| %d | %d | %d | %.2f | %.2f / %.2f | %.1f (%.1f) | %.1f (%.1f) |\n", buckets, n, fair, worst,
				plainSum/rings, plainWorst, float64(join)/rings, float64(joinMin)/rings, float64(leave)/rings, float64(leaveMin)/rings)
		}
	}
	t.Logf("%d random rings per row:\n%s", rings, table.String())
}

// TestRunnerUpBucketsAreWhatAMemberWouldGainIfOneOtherLeft: whichever
// other member leaves, what a member then owns is what it owns now or one
// of its runner-up buckets, never more; it is runner-up for none it owns;
// one member alone, or one not in the ring, is runner-up for nothing. A
// warm member caches its share and its runner-up buckets: about twice its
// share with three members (logged).
// Run it with -v for the table.
// Diagram: none (who owns step 9). client-go: none.
func TestRunnerUpBucketsAreWhatAMemberWouldGainIfOneOtherLeft(t *testing.T) {
	assert.Empty(t, sharding.RunnerUpBuckets([]string{"only"}, "only", 16), "one member: nothing to take over")
	assert.Empty(t, sharding.RunnerUpBuckets([]string{"a", "b"}, "c", 16), "not a member")
	rng := rand.New(rand.NewPCG(7, 11))
	worst, sum, count := map[int]float64{}, map[int]float64{}, map[int]int{}
	for round := range 300 {
		n, buckets := 2+rng.IntN(7), []int{16, 64, 256}[round%3]
		var members []string
		for range n {
			members = append(members, fmt.Sprintf("replica-%x", rng.Uint32()))
		}
		owners := sharding.BucketOwners(members, buckets)
		for _, me := range members {
			up := sharding.RunnerUpBuckets(members, me, buckets)
			watched := slices.Clone(up)
			for b, o := range owners {
				if o == me {
					assert.NotContains(t, up, b, "%s is runner-up for bucket %d it owns", me, b)
					watched = append(watched, b)
				}
			}
			fair := float64(buckets) / float64(n)
			worst[n] = max(worst[n], float64(len(watched))/fair)
			sum[n] += float64(len(watched)) / fair
			count[n]++
			for _, gone := range members {
				if gone == me {
					continue
				}
				rest := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return m == gone })
				for b, o := range sharding.BucketOwners(rest, buckets) {
					if o == me && !slices.Contains(watched, b) {
						t.Fatalf("ring %v without %s gives %s bucket %d, which it neither owns nor is runner-up for", members, gone, me, b)
					}
				}
			}
		}
	}
	for n := 2; n <= 8; n++ {
		t.Logf("%d members: a warm member caches %.2f fair shares on average, %.2f at most", n, sum[n]/float64(count[n]), worst[n])
	}
}
