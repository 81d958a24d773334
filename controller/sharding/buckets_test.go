package sharding_test

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apisharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/internal/shardselector"
)

// withUID is an object carrying only a uid, for apisharding.Selector.Matches.
func withUID(uid types.UID) *unstructured.Unstructured {
	u := ctrltest.ExampleCM()
	u.SetUID(uid)
	return u
}

// TestShardSelectorForWritesMergedRangesInTheServerFormat: adjacent buckets
// merge into one range, bounds are 16 hex digits, the end of the hash space
// is 2^64 written with 17, and the server's grammar reads it back to the
// same text.
// Diagram: step 1 (the list's shardSelector). kube-apiserver: ShardedListAndWatch.
func TestShardSelectorForWritesMergedRangesInTheServerFormat(t *testing.T) {
	got, err := sharding.ShardSelectorFor([]int{15, 1, 0, 1}, 16)
	require.NoError(t, err)
	want := "shardRange(object.metadata.uid, '0x0000000000000000', '0x2000000000000000') || " +
		"shardRange(object.metadata.uid, '0xf000000000000000', '0x10000000000000000')"
	assert.Equal(t, want, got)
	sel, err := shardselector.Parse(got)
	require.NoError(t, err)
	assert.Equal(t, want, sel.String(), "canonical: what the server echoes in shardInfo")

	all, err := sharding.ShardSelectorFor([]int{0, 1, 2}, 3)
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')", all)

	// 2^64 is no multiple of 3: a bucket starts at the first whole hash
	// of its range, ⌈i·2^64/3⌉, which is what BucketOf's ⌊h·3/2^64⌋ implies.
	third, err := sharding.ShardSelectorFor([]int{1}, 3)
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.uid, '0x5555555555555556', '0xaaaaaaaaaaaaaaab')", third)

	none, err := sharding.ShardSelectorFor(nil, 16)
	require.NoError(t, err)
	_, err = shardselector.Parse(none)
	require.NoError(t, err, "no buckets is still a valid selector, not \"\" (everything)")
	for i := range 200 {
		assert.False(t, mustMatch(t, none, types.UID(fmt.Sprintf("u-%d", i))))
	}

	for _, bad := range []struct {
		held    []int
		buckets int
	}{{[]int{16}, 16}, {[]int{-1}, 16}, {[]int{0}, 0}} {
		_, err := sharding.ShardSelectorFor(bad.held, bad.buckets)
		assert.Error(t, err, "%v of %d", bad.held, bad.buckets)
	}
}

func mustMatch(t *testing.T, expr string, uid types.UID) bool {
	t.Helper()
	sel, err := shardselector.Parse(expr)
	require.NoError(t, err)
	ok, err := sel.Matches(withUID(uid))
	require.NoError(t, err)
	return ok
}

// TestBucketOfAgreesWithTheServersFilter: for bucket counts that divide 2^64
// and counts that do not, an object is in exactly one bucket's selector,
// the one BucketOf names, by apimachinery's own hash and range check — so
// the guard and the server's filter never disagree.
// kube-apiserver: apimachinery pkg/sharding HashField, Selector.Matches.
// Diagram: step 1 (the shard selector a list and watch carry). client-go: none (apimachinery pkg/sharding hashes the same).
func TestBucketOfAgreesWithTheServersFilter(t *testing.T) {
	for _, buckets := range []int{1, 3, 7, 16} {
		sels := make([]apisharding.Selector, buckets)
		for b := range buckets {
			expr, err := sharding.ShardSelectorFor([]int{b}, buckets)
			require.NoError(t, err)
			sels[b], err = shardselector.Parse(expr)
			require.NoError(t, err)
		}
		seen := map[int]int{}
		for i := range 3000 {
			uid := types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012d", i*2654435761, i))
			bucket := sharding.BucketOf(uid, buckets)
			seen[bucket]++
			var in []int
			for b, sel := range sels {
				ok, err := sel.Matches(withUID(uid))
				require.NoError(t, err)
				if ok {
					in = append(in, b)
				}
			}
			require.Equal(t, []int{bucket}, in, "uid %s, %d buckets, hash %s", uid, buckets, apisharding.HashField(string(uid)))
		}
		assert.Len(t, seen, buckets, "every bucket is reached")
	}
}

// TestBucketOwnersMovesOnlyTheNewMembersBuckets: rendezvous hashing gives
// every member a share; a fourth member takes buckets only for itself, and
// when it leaves exactly those go back.
// Diagram: none (who owns step 9). client-go: none; timebertt consistent-hash ring.
func TestBucketOwnersMovesOnlyTheNewMembersBuckets(t *testing.T) {
	three := []string{"replica-0", "replica-1", "replica-2"}
	before := sharding.BucketOwners(three, 16)
	assert.Equal(t, before, sharding.BucketOwners([]string{"replica-2", "replica-0", "replica-1"}, 16), "order does not matter")
	counts := map[string]int{}
	for _, o := range before {
		counts[o]++
	}
	t.Logf("3 members, 16 buckets: %v", counts)
	for _, m := range three {
		assert.GreaterOrEqual(t, counts[m], 3, "%s has a share", m)
	}

	after := sharding.BucketOwners(append(slices.Clone(three), "replica-3"), 16)
	moved := 0
	for b := range before {
		if after[b] != before[b] {
			moved++
			assert.Equal(t, "replica-3", after[b], "bucket %d moved, and only to the new member", b)
		}
	}
	t.Logf("a fourth member takes %d of 16 buckets", moved)
	assert.InDelta(t, 4, moved, 3, "about B/(N+1)")
	assert.Equal(t, []string{"", ""}, sharding.BucketOwners(nil, 2), "no members, no owners")
}

// TestBucketOwnersSpreadShrinksAsBucketsGrow measures how evenly rendezvous
// hashing shares B buckets among three members, over rings of three random
// member names (a fixed seed, so the figures are the same on every run):
// the mean number of buckets of the fullest and of the emptiest member, and
// their ratio. With 16 buckets the split is uneven, 7/5/4 more often than
// 6/5/5; the ratio shrinks as B grows, roughly as 1/sqrt(B/N), since each
// member's count is a binomial draw. Diagram: none (who owns step 9).
// client-go: none; bounded-load consistent hashing (Mirrokni, Thorup,
// Zadimoghaddam) is the variant that caps it.
func TestBucketOwnersSpreadShrinksAsBucketsGrow(t *testing.T) {
	const rings, members = 5000, 3
	rnd := rand.New(rand.NewPCG(16, 64))
	var ratios []float64
	splits := map[string]int{} // of 16 buckets, "7/5/4": fullest first
	for _, buckets := range []int{16, 64, 256} {
		var sumMax, sumMin, empty int
		for range rings {
			names := make([]string, members)
			for i := range names {
				names[i] = fmt.Sprintf("replica-%08x", rnd.Uint32())
			}
			counts := map[string]int{}
			for _, o := range sharding.BucketOwners(names, buckets) {
				counts[o]++
			}
			most, least := 0, buckets
			var split []int
			for _, m := range names {
				most, least = max(most, counts[m]), min(least, counts[m])
				split = append(split, counts[m])
			}
			if buckets == 16 {
				slices.Sort(split)
				splits[fmt.Sprintf("%d/%d/%d", split[2], split[1], split[0])]++
			}
			sumMax += most
			sumMin += least
			if least == 0 {
				empty++
			}
		}
		meanMax, meanMin := float64(sumMax)/rings, float64(sumMin)/rings
		ratio := meanMax / meanMin
		ratios = append(ratios, ratio)
		t.Logf("B=%d, N=%d: the fullest member holds %.1f buckets on average, the emptiest %.1f (fair share %.1f): max/min %.2f; rings leaving a member no bucket: %.1f%%",
			buckets, members, meanMax, meanMin, float64(buckets)/members, ratio, 100*float64(empty)/rings)
	}

	common := slices.SortedFunc(maps.Keys(splits), func(a, b string) int { return cmp.Compare(splits[b], splits[a]) })
	for _, split := range common[:3] {
		t.Logf("16 buckets split %s in %.0f%% of rings", split, 100*float64(splits[split])/rings)
	}
	assert.Equal(t, "7/5/4", common[0], "the most common split of 16 among 3")
	assert.Greater(t, splits["7/5/4"], splits["6/5/5"], "more often than the fairest split")
	assert.Greater(t, ratios[0], 1.8, "16 buckets among 3: uneven")
	assert.Less(t, ratios[0], 2.5)
	assert.Less(t, ratios[1], 1.6, "64 buckets among 3")
	assert.Less(t, ratios[2], 1.3, "256 buckets among 3")
	assert.True(t, slices.IsSorted([]float64{ratios[2], ratios[1], ratios[0]}), "the spread shrinks as B grows: %v", ratios)
}
