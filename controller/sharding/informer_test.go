package sharding_test

import (
	"context"
	"fmt"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/predicate"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// replica is one process of a sharded controller: a member, a sharded
// informer of the owner ConfigMaps (namespace "ns") and a bucket-labelled
// informer of their children (namespace "children"), both driven by it, and
// a controller whose Reconciler runs behind the member's guard and journals
// each reconcile.
type replica struct {
	name     string
	m        *sharding.Member
	inf      informer.SharedIndexInformer
	children informer.SharedIndexInformer
	tomb     *sharding.Tombstones
	leases   *ringLeases
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func startReplica(t *testing.T, srv *fakeapi.Server, name string, j *reconcileJournal) *replica {
	t.Helper()
	return startReplicaWarm(t, srv, name, j, nil)
}

// startReplicaWarm starts a replica; with a log, a warm one (Options.Warm)
// whose every list of owners and every admission goes to the log.
func startReplicaWarm(t *testing.T, srv *fakeapi.Server, name string, j *reconcileJournal, log *ringLog) *replica {
	t.Helper()
	var lw reflector.ListerWatcher = srv.Resource(ctrltest.CMGVR).Namespace("ns")
	if log != nil {
		lw = log.lister(name, lw)
	}
	// An informer starts with no bucket: its first list is of the empty share.
	none, err := sharding.ShardSelectorFor(nil, ringBuckets)
	require.NoError(t, err)
	inf := informer.NewSharedIndexInformer(lw, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
	require.NoError(t, inf.SetShardSelector(none))
	cache, err := sharding.InformerCache(inf, lw)
	require.NoError(t, err)
	// The children carry their owner's bucket as a label.
	childLW := srv.Resource(ctrltest.CMGVR).Namespace("children")
	children := informer.NewSharedIndexInformer(childLW, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
	require.NoError(t, children.SetLabelSelector(sharding.BucketLabelSelector(bucketLabel, nil)))
	childCache, err := sharding.InformerBucketLabelCache(children, childLW, bucketLabel, ringBuckets)
	require.NoError(t, err)
	admits := sharding.NewAdmitSource(inf.GetIndexer(), ringBuckets)
	leases := &ringLeases{LeaseClient: srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system")}
	opts := sharding.Options{
		Client: leases, Ring: "foo", Identity: name, Buckets: ringBuckets,
		LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry,
		Cache: sharding.Caches(cache, childCache), Logger: ctrltest.Quiet,
	}
	if log != nil {
		opts.Warm = true
		opts.OnAdmit = func(buckets []int) {
			log.add(name, fmt.Sprintf("admit %v", buckets))
			admits.Admitted(buckets)
		}
	}
	m, err := sharding.NewMember(opts)
	require.NoError(t, err)
	reconciler := controller.ReconcilerFunc(func(ctx context.Context, r controller.Request) (controller.Result, error) {
		start := time.Now()
		time.Sleep(100 * time.Millisecond)
		j.record(r.String(), interval{member: name, start: start, end: time.Now()})
		return controller.Result{}, nil
	})
	// A deleted object's bucket comes from its tombstone.
	tomb := sharding.NewTombstones()
	guarded := tomb.Forgetting(m.Guard(reconciler, tomb.BucketFromCache(inf.GetIndexer(), ringBuckets)))
	c, err := controller.New(name, guarded, controller.Options{MaxConcurrentReconciles: 8, Logger: ctrltest.Quiet})
	require.NoError(t, err)
	// A warm replica's controller, like the sample controller's, ignores
	// an update that changed nothing: a relist's. What it gains it hears
	// of from the AdmitSource.
	var preds []controller.Predicate
	if log != nil {
		preds = append(preds, predicate.ResourceVersionChangedPredicate{})
	}
	require.NoError(t, c.Watch(controller.Kind(inf, tomb.Handler(controller.EnqueueRequestForObject{}), preds...)))
	if log != nil {
		require.NoError(t, c.Watch(admits))
	}

	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{name: name, m: m, inf: inf, children: children, tomb: tomb, leases: leases, cancel: cancel}
	r.wg.Go(func() { inf.Run(ctx) })
	r.wg.Go(func() { children.Run(ctx) })
	r.wg.Go(func() { assert.NoError(t, m.Start(ctx)) })
	r.wg.Go(func() { assert.NoError(t, c.Start(ctx)) })
	t.Cleanup(r.stop)
	return r
}

func (r *replica) stop() {
	r.cancel()
	r.wg.Wait()
}

func (r *replica) cached() []string {
	keys := r.inf.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}

func (r *replica) cachedChildren() []string {
	keys := r.children.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}

// TestShardedReplicasCacheAndReconcileOnlyTheirBuckets: three replicas over
// 60 ConfigMaps, each with a child labelled with its bucket, with the
// server filtering and with it ignoring the shard selector (the client
// filters). Once the ring settles each replica caches exactly the objects,
// and the children, of the buckets it admits: no key in two caches, every
// key in one, and each key reconciled by its owner. When one replica stops,
// the survivors widen their selectors, relist, and cache its objects and
// children and reconcile its keys; no key is ever reconciled by two
// replicas at once.
// Diagram: steps 1-9. client-go: none; kube-apiserver: ShardedListAndWatch on and off.
func TestShardedReplicasCacheAndReconcileOnlyTheirBuckets(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("IgnoreShardSelector=%v", ignore), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testShardedReplicas(t, ignore) })
		})
	}
}

func testShardedReplicas(t *testing.T, ignore bool) {
	srv := fakeapi.New(fakeapi.Options{IgnoreShardSelector: ignore})
	t.Cleanup(srv.Close)
	var all []string
	bucketOf := map[string]int{}
	for i := range 60 {
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("ns", fmt.Sprintf("cm-%02d", i)))
		key := "ns/" + cm.GetName()
		all = append(all, key)
		bucketOf[key] = sharding.BucketOf(cm.GetUID(), ringBuckets)
		child := ctrltest.NewCM("children", cm.GetName())
		child.SetLabels(map[string]string{bucketLabel: strconv.Itoa(bucketOf[key])})
		ctrltest.Create(t, srv, child)
	}
	childOf := func(key string) string { return "children/" + key[len("ns/"):] }
	j := &reconcileJournal{runs: map[string][]interval{}}
	var replicas []*replica
	for _, n := range []string{"replica-0", "replica-1", "replica-2"} {
		replicas = append(replicas, startReplica(t, srv, n, j))
	}

	// settled: each replica's cache holds exactly its admitted buckets'
	// keys, and the admitted buckets are the ring's.
	settled := func(rs []*replica) bool {
		var names []string
		for _, r := range rs {
			names = append(names, r.name)
		}
		owners := sharding.BucketOwners(names, ringBuckets)
		for _, r := range rs {
			var want, wantChildren []string
			for _, k := range all {
				if owners[bucketOf[k]] == r.name {
					want = append(want, k)
					wantChildren = append(wantChildren, childOf(k))
				}
			}
			for b := range ringBuckets {
				if r.m.Admits(b) != (owners[b] == r.name) {
					return false
				}
			}
			if !slices.Equal(r.cached(), want) || !slices.Equal(r.cachedChildren(), wantChildren) {
				return false
			}
		}
		return true
	}
	waitFor := func(cond func() bool) time.Time {
		deadline := time.Now().Add(time.Minute)
		for !cond() {
			require.True(t, time.Now().Before(deadline), "did not settle")
			time.Sleep(50 * time.Millisecond)
		}
		return time.Now()
	}
	settledAt := waitFor(func() bool { return settled(replicas) })
	time.Sleep(3 * time.Second) // requeued keys of just-gained buckets run

	var union, childUnion, allChildren []string
	for _, r := range replicas {
		union = append(union, r.cached()...)
		childUnion = append(childUnion, r.cachedChildren()...)
		t.Logf("%s caches %d objects and %d children, buckets %v", r.name, len(r.cached()), len(r.cachedChildren()), r.m.Held())
	}
	for _, k := range all {
		allChildren = append(allChildren, childOf(k))
	}
	sort.Strings(union)
	sort.Strings(childUnion)
	assert.Equal(t, all, union, "every key in exactly one cache")
	assert.Equal(t, allChildren, childUnion, "every child in exactly one cache")
	for _, k := range all {
		owner := sharding.BucketOwners([]string{"replica-0", "replica-1", "replica-2"}, ringBuckets)[bucketOf[k]]
		_, ok := j.firstBy(k, owner, time.Time{})
		assert.True(t, ok, "%s reconciled by its owner %s", k, owner)
	}

	stoppedAt := time.Now()
	replicas[2].stop()
	tookOver := waitFor(func() bool { return settled(replicas[:2]) })
	t.Logf("settled at %v; replica-2 stopped; survivors cache and admit its buckets %v later", settledAt.Format(time.StampMilli), tookOver.Sub(stoppedAt))
	time.Sleep(3 * time.Second)
	for _, k := range all {
		owner := sharding.BucketOwners([]string{"replica-0", "replica-1"}, ringBuckets)[bucketOf[k]]
		_, ok := j.firstBy(k, owner, time.Time{})
		assert.True(t, ok, "%s reconciled by %s", k, owner)
	}
	assert.Empty(t, j.overlaps())
}

// TestShardedReplicasReconcileADeletedObjectOnceByItsBucketsHolder: three
// replicas share 30 ConfigMaps with no finalizer; six are deleted. A
// deleted object is in no cache any more, yet each deletion is reconciled
// by exactly one replica, the holder of its bucket (found from the
// tombstone's uid), and by no other; the tombstones are forgotten once
// reconciled, including those a narrowing left behind.
// Diagram: steps 6-9 (a delete's key behind the guard). client-go: tools/cache DeletedFinalStateUnknown; controller-runtime: a delete without a finalizer still reconciles.
func TestShardedReplicasReconcileADeletedObjectOnceByItsBucketsHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, bucketOf := serveBucketed(t, fakeapi.Options{}, 30)
		j := &reconcileJournal{runs: map[string][]interval{}}
		names := []string{"replica-0", "replica-1", "replica-2"}
		var replicas []*replica
		for _, n := range names {
			replicas = append(replicas, startReplica(t, srv, n, j))
		}
		owners := sharding.BucketOwners(names, ringBuckets)
		deadline := time.Now().Add(time.Minute)
		for !allAdmitTheirBuckets(replicas, owners) {
			require.True(t, time.Now().Before(deadline), "did not settle")
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(3 * time.Second) // requeued keys of just-gained buckets run

		deletedAt := time.Now()
		var deleted []string
		for i := range 6 {
			name := fmt.Sprintf("cm-%02d", i)
			require.NoError(t, srv.Resource(ctrltest.CMGVR).Namespace("ns").Delete(context.Background(), name, metav1.DeleteOptions{}))
			deleted = append(deleted, "ns/"+name)
		}
		time.Sleep(2 * time.Second)

		for _, key := range deleted {
			var by []string
			for _, n := range names {
				if _, ok := j.firstBy(key, n, deletedAt); ok {
					by = append(by, n)
				}
			}
			t.Logf("%s (bucket %d, held by %s) deleted: reconciled by %v", key, bucketOf[key], owners[bucketOf[key]], by)
			assert.Equal(t, []string{owners[bucketOf[key]]}, by, "%s's deletion reconciled by its bucket's holder, once", key)
		}
		for _, r := range replicas {
			assert.Zero(t, r.tomb.Len(), "%s forgot its tombstones", r.name)
		}
		assert.Empty(t, j.overlaps())
	})
}

// allAdmitTheirBuckets reports whether every replica admits exactly the
// buckets owners gives it.
func allAdmitTheirBuckets(rs []*replica, owners []string) bool {
	for _, r := range rs {
		for b, o := range owners {
			if r.m.Admits(b) != (o == r.name) {
				return false
			}
		}
	}
	return true
}

// TestInformerShardCacheReturnsOnceTheCacheHoldsTheShare: SetShardSelector
// returns only when the informer's cache holds exactly the new share — after
// a widening every gained object is cached, after a narrowing every lost one
// is gone — with no wait by the caller; against a server that filters and
// one that ignores the selector.
// Diagram: steps 1-5. client-go: none (v0.37.2 has no sharded informer); kube-apiserver: ShardedListAndWatch on and off.
func TestInformerShardCacheReturnsOnceTheCacheHoldsTheShare(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("IgnoreShardSelector=%v", ignore), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, bucketOf := serveBucketed(t, fakeapi.Options{IgnoreShardSelector: ignore}, 40)
				share := func(buckets ...int) []string { return keysIn(bucketOf, buckets...) }
				lw := srv.Resource(ctrltest.CMGVR)
				none, err := sharding.ShardSelectorFor(nil, ringBuckets)
				require.NoError(t, err)
				inf := informer.NewSharedIndexInformer(lw, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
				require.NoError(t, inf.SetShardSelector(none))
				cache, err := sharding.InformerCache(inf, lw)
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go inf.Run(ctx)
				cached := func() []string { return cachedKeys(inf) }

				// Half the buckets, then one of them: cm-00's, so neither share
				// is empty.
				one := bucketOf["ns/cm-00"]
				var wide []int
				for b := range ringBuckets {
					if b%2 == one%2 {
						wide = append(wide, b)
					}
				}
				expr, err := sharding.ShardSelectorFor(wide, ringBuckets)
				require.NoError(t, err)
				require.NoError(t, cache.SetShardSelector(ctx, expr))
				assert.Equal(t, share(wide...), cached(), "widened: the gained objects are cached on return")
				t.Logf("widened to buckets %v: %d of 40 objects cached on return", wide, len(cached()))

				expr, err = sharding.ShardSelectorFor([]int{one}, ringBuckets)
				require.NoError(t, err)
				require.NoError(t, cache.SetShardSelector(ctx, expr))
				require.NotEmpty(t, share(one))
				assert.Equal(t, share(one), cached(), "narrowed: the lost objects are gone on return")
				t.Logf("narrowed to bucket %d: %d cached on return: %v", one, len(cached()), cached())

				assert.Error(t, cache.SetShardSelector(ctx, "shardRange(object.metadata.name, '0x0', '0x1')"), "a bad selector is refused")
				cancel()
			})
		})
	}
}

// cachedKeys returns the keys an informer's cache holds, sorted.
func cachedKeys(inf informer.SharedIndexInformer) []string {
	keys := inf.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}

// keysIn returns, sorted, the keys of bucketOf whose bucket is one of
// buckets: the share a replica holding those buckets must cache.
func keysIn(bucketOf map[string]int, buckets ...int) []string {
	var keys []string
	for k, b := range bucketOf {
		if slices.Contains(buckets, b) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// TestInformerShardCacheThatGainsBucketsListsOnlyThem: a cold cache (no
// runner-up buckets) gains a bucket three times in a row. After the first
// change, whose starting share the cache does not know, every list made
// for a gain, the Reflector's and the cache's reference alike, is of the
// gained bucket alone, and each change returns with the cache holding
// exactly the share. A narrowing lists the whole share again. For
// InformerCache (by shard selector, against a server that filters and one
// that ignores the selector) and InformerBucketLabelCache (by label).
// Diagram: steps 1-5. client-go: none (it relists on any change of selector).
func TestInformerShardCacheThatGainsBucketsListsOnlyThem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ignore bool
		label  bool
	}{{"InformerCache", false, false}, {"InformerCache/IgnoreShardSelector", true, false}, {"InformerBucketLabelCache", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, bucketOf := serveBucketed(t, fakeapi.Options{IgnoreShardSelector: tc.ignore}, 64)
				res := srv.Resource(ctrltest.CMGVR)
				ctx0 := context.Background()
				var lists []string
				var mu sync.Mutex
				lw := reflector.ListWatch{
					ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
						what := opts.LabelSelector
						if !tc.label {
							// Not require: this runs on the Reflector's goroutine.
							what = opts.ShardSelector // not whole buckets: a widening of the no-bucket selector
							if buckets, err := sharding.BucketsOfShardSelector(opts.ShardSelector, ringBuckets); err == nil {
								what = fmt.Sprint(buckets)
							}
						}
						mu.Lock()
						lists = append(lists, what)
						mu.Unlock()
						return res.List(ctx, opts)
					},
					WatchFunc: res.Watch,
				}
				inf := informer.NewSharedIndexInformer(lw, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
				var cache sharding.Cache
				var err error
				if tc.label {
					for key, b := range bucketOf {
						cms := res.Namespace("ns")
						obj, err := cms.Get(ctx0, strings.TrimPrefix(key, "ns/"), metav1.GetOptions{})
						require.NoError(t, err)
						u := obj.(*unstructured.Unstructured)
						u.SetLabels(map[string]string{bucketLabel: strconv.Itoa(b)})
						_, err = cms.Update(ctx0, u, metav1.UpdateOptions{})
						require.NoError(t, err)
					}
					require.NoError(t, inf.SetLabelSelector(sharding.BucketLabelSelector(bucketLabel, nil)))
					cache, err = sharding.InformerBucketLabelCache(inf, lw, bucketLabel, ringBuckets)
				} else {
					none, noneErr := sharding.ShardSelectorFor(nil, ringBuckets)
					require.NoError(t, noneErr)
					require.NoError(t, inf.SetShardSelector(none))
					cache, err = sharding.InformerCache(inf, lw)
				}
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go inf.Run(ctx)
				cached := func() []string { return cachedKeys(inf) }
				set := func(buckets ...int) []string {
					t.Helper()
					expr, err := sharding.ShardSelectorFor(buckets, ringBuckets)
					require.NoError(t, err)
					mu.Lock()
					before := len(lists)
					mu.Unlock()
					require.NoError(t, cache.SetShardSelector(ctx, expr))
					require.Equal(t, keysIn(bucketOf, buckets...), cached(), "buckets %v: the cache holds exactly their objects on return", buckets)
					mu.Lock()
					defer mu.Unlock()
					return slices.Clone(lists[before:])
				}
				of := func(buckets ...int) string {
					if tc.label {
						return sharding.BucketLabelSelector(bucketLabel, buckets)
					}
					return fmt.Sprint(buckets)
				}

				// Four buckets that hold objects: a bucket with none is reached
				// at once, before the Reflector lists it (nothing to wait for).
				var full []int
				for b := range ringBuckets {
					if len(keysIn(bucketOf, b)) > 0 && len(full) < 4 {
						full = append(full, b)
					}
				}
				require.Len(t, full, 4)
				set(full[0])
				for n := 2; n <= 4; n++ {
					share := slices.Sorted(slices.Values(full[:n]))
					got := set(share...)
					require.NotEmpty(t, got)
					for _, l := range got {
						assert.Equal(t, of(full[n-1]), l, "widened to %v: every list is of the gained bucket", share)
					}
					t.Logf("widened to buckets %v: lists %q", share, got)
				}
				got := set(full[0], full[1])
				assert.Contains(t, got, of(full[0], full[1]), "a narrowing lists the whole share")
				t.Logf("narrowed to buckets %v: lists %q", full[:2], got)
				cancel()
			})
		})
	}
}
