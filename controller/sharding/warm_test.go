package sharding_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// ringLog records, in order, what each replica of a warm ring does with
// its owners' cache: every list (by the buckets of its shard selector) and
// every admission.
type ringLog struct {
	mu      sync.Mutex
	entries map[string][]string
}

func (l *ringLog) add(replica, entry string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries[replica] = append(l.entries[replica], entry)
}

func (l *ringLog) of(replica string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries[replica])
}

// lister wraps lw so that each List goes to the log as "list [buckets]".
func (l *ringLog) lister(replica string, lw reflector.ListerWatcher) reflector.ListerWatcher {
	return reflector.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			buckets, err := sharding.BucketsOfShardSelector(opts.ShardSelector, ringBuckets)
			if err != nil {
				l.add(replica, "list "+opts.ShardSelector)
			} else {
				l.add(replica, fmt.Sprintf("list %v", buckets))
			}
			return lw.List(ctx, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return lw.Watch(ctx, opts)
		},
	}
}

// startWarmRing starts three warm replicas, replica-0 to replica-2, that
// journal their reconciles in one journal and their lists and admissions
// in one log.
func startWarmRing(t *testing.T, srv *fakeapi.Server) ([]string, []*replica, *reconcileJournal, *ringLog) {
	t.Helper()
	log := &ringLog{entries: map[string][]string{}}
	j := &reconcileJournal{runs: map[string][]interval{}}
	names := []string{"replica-0", "replica-1", "replica-2"}
	var replicas []*replica
	for _, n := range names {
		replicas = append(replicas, startReplicaWarm(t, srv, n, j, log))
	}
	return names, replicas, j, log
}

// TestWarmReplicasTakeOverWithoutRelistingTheirShare: three warm replicas
// over 60 ConfigMaps, each with a child labelled with its bucket. Each
// caches the buckets it holds and those it is runner-up for, and
// reconciles only those it holds. When one leaves, each survivor admits
// the buckets it gains after a list of those buckets alone (the
// confirmation), before any list of its widened share, and reconciles every
// key of them, brought to the queue by its AdmitSource, since no relist
// brings them; no key is reconciled by two replicas at once.
// Diagram: steps 1-9. client-go: none; controller-runtime: warm replicas (EnableWarmup), per bucket.
func TestWarmReplicasTakeOverWithoutRelistingTheirShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{})
		t.Cleanup(srv.Close)
		bucketOf := map[string]int{}
		for i := range 60 {
			cm := ctrltest.Create(t, srv, ctrltest.NewCM("ns", fmt.Sprintf("cm-%02d", i)))
			key := "ns/" + cm.GetName()
			bucketOf[key] = sharding.BucketOf(cm.GetUID(), ringBuckets)
			child := ctrltest.NewCM("children", cm.GetName())
			child.SetLabels(map[string]string{bucketLabel: strconv.Itoa(bucketOf[key])})
			ctrltest.Create(t, srv, child)
		}
		names, replicas, j, log := startWarmRing(t, srv)

		// settled: each replica admits the buckets the ring gives it, and
		// caches exactly those and its runner-up buckets.
		settled := func(rs []*replica) bool {
			var ring []string
			for _, r := range rs {
				ring = append(ring, r.name)
			}
			owners := sharding.BucketOwners(ring, ringBuckets)
			for _, r := range rs {
				watched := sharding.RunnerUpBuckets(ring, r.name, ringBuckets)
				for b, o := range owners {
					if r.m.Admits(b) != (o == r.name) {
						return false
					}
					if o == r.name {
						watched = append(watched, b)
					}
				}
				if !slices.Equal(r.cached(), keysIn(bucketOf, watched...)) {
					return false
				}
				var children []string
				for _, k := range keysIn(bucketOf, watched...) {
					children = append(children, "children/"+k[len("ns/"):])
				}
				if !slices.Equal(r.cachedChildren(), children) {
					return false
				}
			}
			return true
		}
		waitFor := func(cond func() bool) {
			deadline := time.Now().Add(time.Minute)
			for !cond() {
				require.True(t, time.Now().Before(deadline), "did not settle")
				time.Sleep(50 * time.Millisecond)
			}
		}
		waitFor(func() bool { return settled(replicas) })
		time.Sleep(3 * time.Second) // requeued keys of just-gained buckets run
		before := sharding.BucketOwners(names, ringBuckets)
		for _, r := range replicas {
			t.Logf("%s holds %v, caches %d of 60 objects", r.name, r.m.Held(), len(r.cached()))
			assert.Greater(t, len(r.cached()), len(keysIn(bucketOf, r.m.Held()...)), "%s caches more than it holds", r.name)
		}
		for k, b := range bucketOf {
			_, ok := j.firstBy(k, before[b], time.Time{})
			assert.True(t, ok, "%s reconciled by its owner %s", k, before[b])
		}

		marks := map[string]int{}
		for _, r := range replicas[:2] {
			marks[r.name] = len(log.of(r.name))
		}
		left := time.Now()
		replicas[2].stop()
		waitFor(func() bool { return settled(replicas[:2]) })
		time.Sleep(3 * time.Second)
		after := sharding.BucketOwners(names[:2], ringBuckets)

		for _, r := range replicas[:2] {
			var gained []int
			for b := range ringBuckets {
				if after[b] == r.name && before[b] != r.name {
					gained = append(gained, b)
				}
			}
			entries := log.of(r.name)[marks[r.name]:]
			t.Logf("%s gained %v: %v", r.name, gained, entries)
			require.NotEmpty(t, gained)
			admitted := map[int]bool{}
			for _, e := range entries {
				if len(admitted) == len(gained) {
					break
				}
				var buckets []int
				switch {
				case scanBuckets(e, "admit ", &buckets):
					for _, b := range buckets {
						admitted[b] = true
					}
				case scanBuckets(e, "list ", &buckets):
					for _, b := range buckets {
						assert.Contains(t, gained, b, "%s listed bucket %d before it admitted what it gained: %q", r.name, b, e)
					}
				}
			}
			assert.Len(t, admitted, len(gained), "%s admitted every gained bucket", r.name)
			for k, b := range bucketOf {
				if slices.Contains(gained, b) {
					_, ok := j.firstBy(k, r.name, left)
					assert.True(t, ok, "%s (bucket %d) reconciled by %s after the takeover", k, b, r.name)
				}
			}
		}
		assert.Empty(t, j.overlaps())
	})
}

// serveBucketed serves n ConfigMaps, cm-00 and on, in namespace "ns" on a
// fakeapi with opts, and returns their keys' buckets.
func serveBucketed(t *testing.T, opts fakeapi.Options, n int) (*fakeapi.Server, map[string]int) {
	t.Helper()
	srv := fakeapi.New(opts)
	t.Cleanup(srv.Close)
	bucketOf := map[string]int{}
	for i := range n {
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("ns", fmt.Sprintf("cm-%02d", i)))
		bucketOf["ns/"+cm.GetName()] = sharding.BucketOf(cm.GetUID(), ringBuckets)
	}
	return srv, bucketOf
}

// scanBuckets reads an entry "<prefix>[1 2 3]" into buckets.
func scanBuckets(entry, prefix string, buckets *[]int) bool {
	rest, ok := strings.CutPrefix(entry, prefix)
	if !ok || !strings.HasPrefix(rest, "[") || !strings.HasSuffix(rest, "]") {
		return false
	}
	*buckets = nil
	for _, f := range strings.Fields(rest[1 : len(rest)-1]) {
		b, err := strconv.Atoi(f)
		if err != nil {
			return false
		}
		*buckets = append(*buckets, b)
	}
	sort.Ints(*buckets)
	return true
}

// TestWarmCacheConfirmShareWaitsForTheServersNewestWrites: a cache that
// already holds every bucket is asked to confirm one, right after an object
// of that bucket (and one of another bucket) was updated on the server. It
// returns only once the cache holds the first update, and leaves the
// selector as it was: the other buckets stay cached. A selector that is
// not of buckets is refused.
// Diagram: steps 1-5. client-go: none.
func TestWarmCacheConfirmShareWaitsForTheServersNewestWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{})
		t.Cleanup(srv.Close)
		lw := srv.Resource(ctrltest.CMGVR).Namespace("ns")
		bucketOf := map[string]int{}
		for i := range 20 {
			cm := ctrltest.Create(t, srv, ctrltest.NewCM("ns", fmt.Sprintf("cm-%02d", i)))
			bucketOf[cm.GetName()] = sharding.BucketOf(cm.GetUID(), ringBuckets)
		}
		inf := informer.NewSharedIndexInformer(lw, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
		cache, err := sharding.InformerCache(inf, lw)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go inf.Run(ctx)
		require.NoError(t, cache.SetShardSelector(ctx, ""))
		warm, ok := cache.(sharding.WarmCache)
		require.True(t, ok, "an InformerCache is a WarmCache")

		one := bucketOf["cm-00"]
		for round := range 3 {
			obj, err := lw.Get(ctx, "cm-00", metav1.GetOptions{})
			require.NoError(t, err)
			u := obj.(*unstructured.Unstructured)
			u.SetLabels(map[string]string{"round": strconv.Itoa(round)})
			updated, err := lw.Update(ctx, u, metav1.UpdateOptions{})
			require.NoError(t, err)
			rv := updated.(*unstructured.Unstructured).GetResourceVersion()
			expr, err := sharding.ShardSelectorFor([]int{one}, ringBuckets)
			require.NoError(t, err)
			require.NoError(t, warm.ConfirmShare(ctx, expr))
			item, ok, err := inf.GetIndexer().GetByKey("ns/cm-00")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, rv, item.(*unstructured.Unstructured).GetResourceVersion(), "round %d: confirmed, the cache holds the update", round)
			assert.Len(t, inf.GetIndexer().ListKeys(), 20, "round %d: the other buckets stay cached", round)
		}
		assert.Error(t, warm.ConfirmShare(ctx, "shardRange(object.metadata.name, '0x0', '0x1')"), "a bad selector is refused")
	})
}

// TestWarmMemberThatLosesItsBucketsForALateRenewalKeepsThemCached: a warm
// member cut off from the Leases for longer than RenewDeadline (but less
// than LeaseDuration, so no one else takes its buckets) drops them, and
// takes them back by a write once it reaches the API server again. Its
// cache keeps them all along: the selector does not change, so nothing is
// relisted; each bucket is confirmed by a list of it alone before its keys
// run again.
// Diagram: steps 1-5 and 8. client-go: none.
func TestWarmMemberThatLosesItsBucketsForALateRenewalKeepsThemCached(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := serveBucketed(t, fakeapi.Options{}, 40)
		names, replicas, j, log := startWarmRing(t, srv)
		owners := sharding.BucketOwners(names, ringBuckets)
		deadline := time.Now().Add(time.Minute)
		for !allAdmitTheirBuckets(replicas, owners) {
			require.True(t, time.Now().Before(deadline), "did not settle")
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(3 * time.Second)
		r := replicas[0]
		owned := r.m.Held()
		require.NotEmpty(t, owned)
		cached := r.cached()
		mark := len(log.of(r.name))

		r.leases.fail.Store(true)
		cut := time.Now()
		for len(r.m.Held()) > 0 {
			require.Less(t, time.Since(cut), ringLease, "%s still holds %v after %v cut off", r.name, r.m.Held(), time.Since(cut))
			assert.Equal(t, cached, r.cached(), "%s's cache while it holds its buckets", r.name)
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("%s dropped its buckets %v %v after it was cut off (RenewDeadline %v)", r.name, owned, time.Since(cut), ringRenew)
		r.leases.fail.Store(false)
		for !allAdmitTheirBuckets(replicas, owners) {
			require.True(t, time.Now().Before(deadline), "%s did not take its buckets back", r.name)
			assert.Equal(t, cached, r.cached(), "%s's cache while its buckets are not held", r.name)
			time.Sleep(50 * time.Millisecond)
		}
		assert.Equal(t, cached, r.cached(), "%s's cache once it took its buckets back", r.name)
		entries := log.of(r.name)[mark:]
		t.Logf("%s after the cut: %v", r.name, entries)
		admitted := 0
		for _, e := range entries {
			var buckets []int
			switch {
			case scanBuckets(e, "list ", &buckets):
				for _, b := range buckets {
					assert.Contains(t, owned, b, "%s listed bucket %d, which it did not lose: %q", r.name, b, e)
				}
			case scanBuckets(e, "admit ", &buckets):
				admitted += len(buckets)
			}
		}
		assert.Equal(t, len(owned), admitted, "%s admitted each of its buckets once more", r.name)
		assert.Empty(t, j.overlaps())
	})
}
