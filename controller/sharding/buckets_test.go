package sharding_test

import (
	"fmt"
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
	t.Logf("buckets {15, 1, 0, 1} of 16: %s", got)

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
		t.Logf("%d buckets: 3,000 uids, each matched by exactly the selector of BucketOf's bucket; per bucket %v", buckets, countsByBucket(seen, buckets))
	}
}

// countsByBucket lists seen's counts in bucket order.
func countsByBucket(seen map[int]int, buckets int) []int {
	out := make([]int, buckets)
	for b, n := range seen {
		out[b] = n
	}
	return out
}
