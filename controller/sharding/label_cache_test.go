package sharding_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

const bucketLabel = "informerlab.dev/bucket"

// TestBucketsOfShardSelectorInvertsShardSelectorFor: every set of buckets
// comes back from its selector, for bucket counts that do and do not divide
// 2^64; "" is every bucket and the no-bucket selector none; a selector that
// is not a union of whole buckets is an error.
// Diagram: step 1. kube-apiserver: ShardedListAndWatch's grammar.
func TestBucketsOfShardSelectorInvertsShardSelectorFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, buckets := range []int{1, 3, 7, 16, 64} {
		for range 50 {
			var held []int
			for b := range buckets {
				if rng.IntN(2) == 0 {
					held = append(held, b)
				}
			}
			expr, err := sharding.ShardSelectorFor(held, buckets)
			require.NoError(t, err)

			got, err := sharding.BucketsOfShardSelector(expr, buckets)

			require.NoError(t, err, expr)
			assert.Equal(t, held, got, "%d buckets: %s", buckets, expr)
		}
		t.Logf("%d buckets: 50 random sets, each read back from its selector", buckets)
	}

	all, err := sharding.BucketsOfShardSelector("", 4)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3}, all, `"" selects every object: every bucket`)

	for _, bad := range []struct{ expr, why string }{
		{"shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')", "want object.metadata.uid"},
		{"shardRange(object.metadata.uid, '0x0000000000000000', '0x0800000000000000')", "not a run of whole buckets of 16"},
		{"shardRange(object.metadata.uid, '0x5555555555555556', '0xaaaaaaaaaaaaaaab')", "not a run of whole buckets of 16"}, // bucket 1 of 3
		{"shardRange(", "invalid"},
	} {
		_, err := sharding.BucketsOfShardSelector(bad.expr, 16)
		require.Error(t, err, bad.expr)
		assert.Contains(t, err.Error(), bad.why)
		t.Logf("refused: %v", err)
	}
}

// TestBucketLabelSelectorSelectsTheHeldBucketsOrNothing: the selector of a
// set of buckets matches exactly the objects labelled with one of them, and
// the selector of no bucket matches nothing, labelled or not.
// Diagram: step 1 (the list's labelSelector).
func TestBucketLabelSelectorSelectsTheHeldBucketsOrNothing(t *testing.T) {
	sel := sharding.BucketLabelSelector(bucketLabel, []int{9, 3, 4, 3})
	assert.Equal(t, bucketLabel+" in (3,4,9)", sel)
	ls, err := labels.Parse(sel)
	require.NoError(t, err)
	none, err := labels.Parse(sharding.BucketLabelSelector(bucketLabel, nil))
	require.NoError(t, err)

	for b := range 16 {
		set := labels.Set{bucketLabel: strconv.Itoa(b)}
		assert.Equal(t, slices.Contains([]int{3, 4, 9}, b), ls.Matches(set), "bucket %d", b)
		assert.False(t, none.Matches(set), "no bucket selects bucket %d", b)
	}
	assert.False(t, ls.Matches(labels.Set{}), "an unlabelled object is in no bucket")
	assert.False(t, none.Matches(labels.Set{}))
	t.Logf("buckets {9, 3, 4, 3}: %q; no bucket: %q, which matches nothing", sel, sharding.BucketLabelSelector(bucketLabel, nil))
}

// TestInformerBucketLabelCacheReturnsOnceTheCacheHoldsTheBuckets: told the
// shard selector of a set of buckets, the cache sets the label selector of
// those buckets and returns only when the informer's cache holds exactly
// the objects so labelled: after a widening every gained one, after a
// narrowing none of the lost; no bucket caches nothing, and an unlabelled
// object is never cached.
// Diagram: steps 1-5. client-go: none.
func TestInformerBucketLabelCacheReturnsOnceTheCacheHoldsTheBuckets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{})
		t.Cleanup(srv.Close)
		bucketOf := map[string]int{}
		for i := range 48 {
			cm := ctrltest.NewCM("ns", fmt.Sprintf("child-%02d", i))
			cm.SetLabels(map[string]string{bucketLabel: strconv.Itoa(i % ringBuckets)})
			ctrltest.Create(t, srv, cm)
			bucketOf["ns/"+cm.GetName()] = i % ringBuckets
		}
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "unlabelled"))
		share := func(buckets ...int) []string { return keysIn(bucketOf, buckets...) }
		lw := srv.Resource(ctrltest.CMGVR)
		inf := informer.NewSharedIndexInformer(lw, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
		require.NoError(t, inf.SetLabelSelector(sharding.BucketLabelSelector(bucketLabel, nil)))
		cache, err := sharding.InformerBucketLabelCache(inf, lw, bucketLabel, ringBuckets)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go inf.Run(ctx)
		cached := func() []string {
			keys := inf.GetIndexer().ListKeys()
			sort.Strings(keys)
			return keys
		}
		set := func(held ...int) {
			t.Helper()
			expr, err := sharding.ShardSelectorFor(held, ringBuckets)
			require.NoError(t, err)
			require.NoError(t, cache.SetShardSelector(ctx, expr))
		}

		set(0, 1, 2, 7, 8)
		assert.Equal(t, share(0, 1, 2, 7, 8), cached(), "widened: the gained children are cached on return")
		t.Logf("buckets {0, 1, 2, 7, 8}: %d children cached on return", len(cached()))

		set(2, 15)
		assert.Equal(t, share(2, 15), cached(), "moved: the lost children are gone and the gained cached on return")
		t.Logf("buckets {2, 15}: %d children cached on return: %v", len(cached()), cached())

		set()
		assert.Empty(t, cached(), "no bucket: nothing")
		t.Logf("no bucket: %d cached (the unlabelled child never is)", len(cached()))

		assert.Error(t, cache.SetShardSelector(ctx, "shardRange(object.metadata.uid, '0x0000000000000000', '0x0800000000000000')"),
			"a range that splits a bucket is refused")
		cancel()
	})
}

// TestShardCachesSetsEveryCacheAndWaitsForAll: the combined cache tells
// every cache the same selector at once and returns only when the slowest
// has returned, with every error.
// Diagram: none (the member's side). client-go: none.
func TestShardCachesSetsEveryCacheAndWaitsForAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		got := map[string]string{}
		slow := func(name string, d time.Duration, err error) sharding.Cache {
			return sharding.CacheFunc(func(ctx context.Context, expr string) error {
				time.Sleep(d)
				mu.Lock()
				defer mu.Unlock()
				got[name] = expr
				return err
			})
		}
		both := sharding.Caches(slow("foos", time.Second, nil), slow("children", 3*time.Second, nil))

		start := time.Now()
		require.NoError(t, both.SetShardSelector(context.Background(), "x"))

		assert.Equal(t, 3*time.Second, time.Since(start), "the two ran at once, and the call waited for the slower")
		assert.Equal(t, map[string]string{"foos": "x", "children": "x"}, got)
		t.Logf("caches taking 1s and 3s: the combined call returned after %v, both told %q", time.Since(start), got["foos"])

		boom := errors.New("boom")
		err := sharding.Caches(slow("a", 0, nil), slow("b", 0, boom)).SetShardSelector(context.Background(), "y")
		assert.ErrorIs(t, err, boom)
		t.Logf("one cache failing: %v", err)
	})
}
