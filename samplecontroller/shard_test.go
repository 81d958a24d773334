package samplecontroller_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/leasecut"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// The test ring's Lease timings: a crashed replica's buckets are free
// LeaseDuration after its last renewal.
const (
	shardLeaseDuration = 4 * time.Second
	shardRenewDeadline = 2 * time.Second
	shardRetryPeriod   = 500 * time.Millisecond
)

// journal records, per Foo key, every Reconcile of every replica as an
// interval [start, end] of a global sequence, to catch two replicas
// reconciling one key at once.
type journal struct {
	mu   sync.Mutex
	seq  int
	open map[string]int // replica + " " + key -> start
	runs map[string][]run
	mark int // reconcilers counts the runs that started after it
	// gone lists, per Foo key, the replicas whose Reconciler read it
	// from their cache and found it gone.
	gone map[string][]string
}

type run struct {
	replica    string
	start, end int
}

func newJournal() *journal {
	return &journal{open: map[string]int{}, runs: map[string][]run{}, gone: map[string][]string{}}
}

// observer returns the Observer of one replica: the guard sits outside it,
// so it hears only the Reconciles the guard admitted.
func (j *journal) observer(replica string) sc.Observer {
	return func(e sc.Event) {
		if e.Controller != sc.FooControllerName {
			return
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		j.seq++
		id := replica + " " + e.Request.String()
		switch e.Step {
		case sc.StepGetKey:
			j.open[id] = j.seq
		case sc.StepReconcile:
			j.runs[e.Request.String()] = append(j.runs[e.Request.String()], run{replica, j.open[id], j.seq})
			delete(j.open, id)
		case sc.StepListerGet:
			if e.Resource == "foos" && e.Verb == "not found" {
				j.gone[e.Key] = append(j.gone[e.Key], replica)
			}
		}
	}
}

// overlaps lists the pairs of Reconciles of one key by two replicas whose
// intervals intersect.
func (j *journal) overlaps() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for key, runs := range j.runs {
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				if a.replica != b.replica && a.start < b.end && b.start < a.end {
					out = append(out, fmt.Sprintf("%s: %v and %v", key, a, b))
				}
			}
		}
	}
	return out
}

// reconcilers returns, per key, the replicas that started reconciling it
// since the last reset.
func (j *journal) reconcilers() map[string][]string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string][]string{}
	for key, runs := range j.runs {
		for _, r := range runs {
			if r.start > j.mark && !slices.Contains(out[key], r.replica) {
				out[key] = append(out[key], r.replica)
			}
		}
	}
	return out
}

func (j *journal) reset() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.mark = j.seq
}

// replica is one sharded sample controller of a test ring.
type replica struct {
	name   string
	sc     *sc.SampleController
	leases *leasecut.Client
	cancel context.CancelFunc
	done   chan error
}

// crash cuts the replica off the Leases, then stops it: it releases
// nothing, and its buckets are free only once their Leases expire.
func (r *replica) crash(t *testing.T) {
	r.leases.Cut()
	r.cancel()
	assert.NoError(t, <-r.done, "replica %s Run", r.name)
	r.done = nil
}

// startReplicas runs n sharded sample controllers of the ring "foos" over
// srv, each with its own Identity and journal observer.
func startReplicas(t *testing.T, srv *fakeapi.Server, n int, j *journal) []*replica {
	t.Helper()
	return startReplicasWarm(t, srv, n, j, false)
}

// startReplicasWarm is startReplicas with ShardOptions.Warm set to warm.
func startReplicasWarm(t *testing.T, srv *fakeapi.Server, n int, j *journal, warm bool) []*replica {
	t.Helper()
	api := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	}
	var rs []*replica
	for i := range n {
		r := &replica{name: "replica-" + strconv.Itoa(i), done: make(chan error, 1)}
		r.leases = leasecut.New(srv.Resource(sc.LeasesGVR).Namespace("kube-system"))
		var err error
		r.sc, err = sc.New(api, sc.Options{
			Namespace: ns,
			// Every replica simulates its own buckets' Deployments; a
			// crashed one's are simulated by their new holder.
			DeploymentSimulator: true,
			Logger:              quiet,
			Observer:            j.observer(r.name),
			Shard: &sc.ShardOptions{
				Ring:          "foos",
				Identity:      r.name,
				LeaseClient:   r.leases,
				LeaseDuration: shardLeaseDuration,
				RenewDeadline: shardRenewDeadline,
				RetryPeriod:   shardRetryPeriod,
				Warm:          warm,
			},
		})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		r.cancel = cancel
		go func() { r.done <- r.sc.Run(ctx) }()
		rs = append(rs, r)
	}
	t.Cleanup(func() {
		for _, r := range rs {
			if r.done != nil {
				r.cancel()
				assert.NoError(t, <-r.done, "replica %s Run", r.name)
			}
		}
	})
	return rs
}

// shardWorld serves the Foos on a fakeapi with opts and creates 24 of them,
// foo-00 to foo-23, each asking for 1 replica of dep-NN.
func shardWorld(t *testing.T, opts fakeapi.Options) (*fakeapi.Server, *world) {
	t.Helper()
	srv := fakeapi.New(opts)
	t.Cleanup(srv.Close)
	require.NoError(t, sc.Register(srv))
	w := &world{srv: srv, foos: srv.Resource(sc.FoosGVR).Namespace(ns), deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns)}
	for i := range 24 {
		w.createFoo(t, newFoo(fmt.Sprintf("foo-%02d", i), fmt.Sprintf("dep-%02d", i), int32p(1)))
	}
	return srv, w
}

// fooBuckets returns every Foo's key → bucket, read from the server.
func fooBuckets(t *testing.T, foos *fakeapi.ResourceClient, buckets int) map[string]int {
	t.Helper()
	list, err := foos.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	out := map[string]int{}
	for _, item := range items {
		m, err := meta.Accessor(item)
		require.NoError(t, err)
		out[m.GetNamespace()+"/"+m.GetName()] = sharding.BucketOf(m.GetUID(), buckets)
	}
	return out
}

// cachedFoos returns the keys in a replica's Foo cache, sorted.
func cachedFoos(t *testing.T, r *replica) []string {
	t.Helper()
	inf, err := r.sc.Manager().GetInformer(sc.FoosGVR, &sc.Foo{})
	require.NoError(t, err)
	keys := inf.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}

// cachedDeployments returns the keys in a replica's Deployment cache, sorted.
func cachedDeployments(t *testing.T, r *replica) []string {
	t.Helper()
	inf, err := r.sc.Manager().GetInformer(sc.DeploymentsGVR, &sc.Deployment{})
	require.NoError(t, err)
	keys := inf.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}

// deploymentBuckets returns every Deployment's key → the bucket of the Foo
// that controls it, computed from that Foo's uid (not read from the label).
func deploymentBuckets(t *testing.T, w *world, buckets int) map[string]int {
	t.Helper()
	list, err := w.foos.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	fooBucket := map[types.UID]int{}
	for _, item := range items {
		m, err := meta.Accessor(item)
		require.NoError(t, err)
		fooBucket[m.GetUID()] = sharding.BucketOf(m.GetUID(), buckets)
	}
	list, err = w.deps.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err = meta.ExtractList(list)
	require.NoError(t, err)
	out := map[string]int{}
	for _, item := range items {
		m, err := meta.Accessor(item)
		require.NoError(t, err)
		ref := metav1.GetControllerOfNoCopy(m)
		require.NotNil(t, ref, "deployment %s has a controller", m.GetName())
		out[m.GetNamespace()+"/"+m.GetName()] = fooBucket[ref.UID]
	}
	return out
}

// keysIn returns the keys of all whose bucket is in held, sorted.
func keysIn(all map[string]int, held []int) []string {
	var keys []string
	for key, b := range all {
		if slices.Contains(held, b) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

// checkShares checks that every live replica caches exactly the Foos and
// the Deployments of the buckets it holds, that the held sets split all
// buckets, and so that every Foo and every Deployment is in exactly one
// cache. It returns bucket → holder.
func checkShares(t *testing.T, live []*replica, all, deps map[string]int) map[int]string {
	t.Helper()
	holder := map[int]string{}
	var union []string
	for _, r := range live {
		held := r.sc.ShardMember().Held()
		assert.Equal(t, keysIn(all, held), cachedFoos(t, r), "replica %s (buckets %v) caches exactly its buckets' Foos", r.name, held)
		assert.Equal(t, keysIn(deps, held), cachedDeployments(t, r), "replica %s (buckets %v) caches exactly its buckets' Deployments", r.name, held)
		union = append(union, cachedDeployments(t, r)...)
		for _, b := range held {
			assert.NotContains(t, holder, b, "bucket %d held twice", b)
			holder[b] = r.name
		}
	}
	assert.Len(t, holder, sharding.DefaultBuckets, "every bucket is held")
	sort.Strings(union)
	assert.Equal(t, keysIn(deps, slices.Collect(maps.Keys(holder))), union, "every Deployment in exactly one cache")
	assert.Len(t, union, len(deps))
	var names []string
	for _, r := range live {
		names = append(names, r.name)
	}
	for b, owner := range sharding.BucketOwners(names, sharding.DefaultBuckets) {
		assert.Equal(t, owner, holder[b], "bucket %d is held by the member the ring gives it", b)
	}
	for _, r := range live {
		t.Logf("%s holds buckets %v and caches %d Foos and %d Deployments", r.name, r.sc.ShardMember().Held(), len(cachedFoos(t, r)), len(cachedDeployments(t, r)))
	}
	return holder
}

// bumpReplicas sets every Foo's spec.replicas to n, which makes each one a
// new generation its owner must reconcile.
func bumpReplicas(t *testing.T, w *world, n int32) {
	t.Helper()
	for key := range fooBuckets(t, w.foos, sharding.DefaultBuckets) {
		name := key[len(ns)+1:]
		patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n)
		_, err := w.foos.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{})
		require.NoError(t, err)
	}
}

// Three sharded sample controllers over one server: every Foo converges;
// each replica caches exactly the Foos of the buckets it holds; a change to
// a Foo is reconciled by its bucket's holder alone; a replica that crashes
// (no renewal, no release) loses its buckets once their Leases expire, and
// the survivors reconcile its Foos; no two replicas ever reconcile one Foo
// at once.
// Diagram: steps 1-9 per replica; step 1 relists when a bucket moves. client-go: none.
func TestShardedSampleControllersSplitTheFoosAndSurvivorsTakeACrashedReplicasFoos(t *testing.T) {
	testShardedSampleControllers(t, fakeapi.Options{Scheme: sc.NewScheme()})
}

// The same on a server that ignores shardSelector, as kube-apiserver does
// with the ShardedListAndWatch gate off: every replica receives every Foo,
// the client-side re-check drops the others, and the caches come out the
// same.
// Diagram: step 1 (filtered on the client), then 2-9. client-go: none.
func TestShardedSampleControllersOnAServerThatIgnoresTheShardSelector(t *testing.T) {
	testShardedSampleControllers(t, fakeapi.Options{Scheme: sc.NewScheme(), IgnoreShardSelector: true})
}

func testShardedSampleControllers(t *testing.T, srvOpts fakeapi.Options) {
	synctest.Test(t, func(t *testing.T) {
		srv, w := shardWorld(t, srvOpts)
		j := newJournal()
		rs := startReplicas(t, srv, 3, j)

		// The ring settles: members see each other, buckets move to their
		// owners, caches relist; every Foo converges.
		time.Sleep(30 * time.Second)
		synctest.Wait()
		w.checkConverged(t)
		all := fooBuckets(t, w.foos, sharding.DefaultBuckets)
		deps := deploymentBuckets(t, w, sharding.DefaultBuckets)
		require.Len(t, deps, len(all), "one Deployment per Foo")
		holder := checkShares(t, rs, all, deps)
		for _, r := range rs {
			assert.NotEmpty(t, r.sc.ShardMember().Held(), "replica %s holds buckets", r.name)
		}
		// Every Deployment carries its Foo's bucket.
		for key, b := range all {
			foo := w.getFoo(t, key[len(ns)+1:])
			dep := w.getDeployment(t, foo.Spec.DeploymentName)
			assert.Equal(t, strconv.Itoa(b), dep.Labels[sc.BucketLabel], "deployment of %s", key)
		}

		// A change to every Foo is reconciled by its bucket's holder alone.
		j.reset()
		bumpReplicas(t, w, 2)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		w.checkConverged(t)
		got := j.reconcilers()
		for key, b := range all {
			assert.Equal(t, []string{holder[b]}, got[key], "%s (bucket %d) reconciled by its holder only", key, b)
		}

		// A crash: replica-0 stops renewing and releases nothing. Its
		// buckets are free after LeaseDuration; survivors take them,
		// relist, and reconcile its Foos.
		var lost []string
		for key, b := range all {
			if holder[b] == rs[0].name {
				lost = append(lost, key)
			}
		}
		require.NotEmpty(t, lost)
		rs[0].crash(t)
		t.Logf("%s crashed, holding %d Foos", rs[0].name, len(lost))
		j.reset()
		bumpReplicas(t, w, 3)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		w.checkConverged(t)
		holder = checkShares(t, rs[1:], all, deps)
		got = j.reconcilers()
		for _, key := range lost {
			require.Len(t, got[key], 1, "%s reconciled by one survivor", key)
			assert.Equal(t, holder[all[key]], got[key][0], "%s reconciled by its bucket's new holder", key)
		}
		t.Logf("each of its %d Foos reconciled by one survivor, its bucket's new holder; overlapping reconciles: %d", len(lost), len(j.overlaps()))
		assert.Empty(t, j.overlaps(), "no two replicas reconcile one Foo at once")
	})
}

// Two warm sharded sample controllers: each caches the Foos and the
// Deployments of the buckets it holds and of those it is runner-up for
// (with two, the other's: every Foo), and reconciles only those it holds.
// When one crashes, nothing about its Foos changes, and the survivor's
// caches already hold them and keep their selectors, so no event and no
// relist brings their keys: each is reconciled by the survivor all the
// same, once, brought by the AdmitSource when its bucket is admitted.
// Diagram: steps 1-9 per replica; step 1 lists a gained bucket once, to confirm it. client-go: none; controller-runtime: warm replicas.
func TestWarmShardedSampleControllersReconcileACrashedReplicasFoosWithNoEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, w := shardWorld(t, fakeapi.Options{Scheme: sc.NewScheme()})
		j := newJournal()
		rs := startReplicasWarm(t, srv, 2, j, true)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		w.checkConverged(t)
		all := fooBuckets(t, w.foos, sharding.DefaultBuckets)
		deps := deploymentBuckets(t, w, sharding.DefaultBuckets)
		names := []string{rs[0].name, rs[1].name}
		owners := sharding.BucketOwners(names, sharding.DefaultBuckets)
		var lost []string
		for _, r := range rs {
			held := r.sc.ShardMember().Held()
			watched := append(slices.Clone(held), sharding.RunnerUpBuckets(names, r.name, sharding.DefaultBuckets)...)
			assert.Len(t, watched, sharding.DefaultBuckets, "with two members, a member is runner-up for all the other holds")
			assert.Equal(t, keysIn(all, watched), cachedFoos(t, r), "%s caches the Foos of its held and runner-up buckets", r.name)
			assert.Equal(t, keysIn(deps, watched), cachedDeployments(t, r), "%s caches their Deployments", r.name)
			t.Logf("%s holds %v and caches %d of %d Foos", r.name, held, len(cachedFoos(t, r)), len(all))
		}
		for key, b := range all {
			if owners[b] == rs[0].name {
				lost = append(lost, key)
			}
		}
		require.NotEmpty(t, lost)

		j.reset()
		rs[0].crash(t)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		w.checkConverged(t)
		after := sharding.BucketOwners(names[1:], sharding.DefaultBuckets)
		got := j.reconcilers()
		for _, key := range lost {
			assert.Equal(t, []string{after[all[key]]}, got[key], "%s reconciled once more, by its bucket's new holder alone", key)
		}
		t.Logf("%s crashed holding %d Foos; each reconciled by its new holder, with no event; overlapping reconciles: %d", rs[0].name, len(lost), len(j.overlaps()))
		assert.Empty(t, j.overlaps(), "no two replicas reconcile one Foo at once")
	})
}

// A Foo that is deleted leaves every cache, finalizer or not; its key's
// last Reconcile, which finds it gone and forgets what the controller
// wrote for it, still runs, on its bucket's holder alone: the guard finds
// the bucket from the Foo's tombstone, not from the cache.
// Diagram: steps 6-9 for a delete. client-go: sample-controller handles a deleted Foo's key (lister NotFound).
func TestShardedSampleControllersReconcileADeletedFoosKeyOnItsHolderAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, w := shardWorld(t, fakeapi.Options{Scheme: sc.NewScheme()})
		j := newJournal()
		rs := startReplicas(t, srv, 3, j)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		w.checkConverged(t)
		all := fooBuckets(t, w.foos, sharding.DefaultBuckets)
		holder := checkShares(t, rs, all, deploymentBuckets(t, w, sharding.DefaultBuckets))

		for i := range 4 {
			require.NoError(t, w.foos.Delete(context.Background(), fmt.Sprintf("foo-%02d", i), metav1.DeleteOptions{}))
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()

		for i := range 4 {
			key := fmt.Sprintf("%s/foo-%02d", ns, i)
			_, err := w.foos.Get(context.Background(), key[len(ns)+1:], metav1.GetOptions{})
			require.Error(t, err, "%s is gone", key)
			j.mu.Lock()
			gone := slices.Clone(j.gone[key])
			j.mu.Unlock()
			t.Logf("%s (bucket %d, held by %s) deleted: found gone by %v", key, all[key], holder[all[key]], gone)
			// The holder may find it gone twice: the Foo's delete event and
			// its Deployment's, which the Reconcile deleted, each bring the
			// key, in either order. Which replicas found it gone is the point.
			slices.Sort(gone)
			assert.Equal(t, []string{holder[all[key]]}, slices.Compact(gone), "%s's last Reconcile ran on its holder alone", key)
		}
		assert.Empty(t, j.overlaps())
	})
}

// A ring name that cannot prefix Lease names is refused by New, before
// anything runs.
// Diagram: none (options). client-go: none.
func TestShardedSampleControllerRefusesABadRingName(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	t.Cleanup(srv.Close)
	require.NoError(t, sc.Register(srv))
	api := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	}
	_, err := sc.New(api, sc.Options{Logger: quiet, Shard: &sc.ShardOptions{Ring: "Not A DNS Label"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "samplecontroller: sharding: controller: shard member: Ring")
}

// A Deployment made by an unsharded run carries no bucket label, so no
// sharded replica's cache ever holds it and every create meets
// AlreadyExists. The Foo controller reads it from the API and, since the Foo
// controls it, labels it with the Foo's bucket (a patch that carries the
// resourceVersion it read); the replica's cache then holds it and the Foo
// converges. A Deployment the Foo does not control is left as it is, and
// the Foo says so.
// Diagram: steps 8-9, then an API write. client-go: none.
func TestShardedFooControllerLabelsAnUnlabelledDeploymentItControls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
		t.Cleanup(srv.Close)
		require.NoError(t, sc.Register(srv))
		w := &world{srv: srv, foos: srv.Resource(sc.FoosGVR).Namespace(ns), deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns)}
		mine := w.createFoo(t, newFoo("mine", "dep-mine", int32p(2)))
		other := w.createFoo(t, newFoo("other", "dep-other", int32p(1)))
		unlabelled := func(name string, owner *sc.Foo, controlled bool) {
			ref := *metav1.NewControllerRef(owner, sc.FooGVK)
			ref.Controller = &controlled
			_, err := w.deps.Create(context.Background(), &sc.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: []metav1.OwnerReference{ref}},
				Spec: sc.DeploymentSpec{Replicas: int32p(1), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
					Template: sc.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}}}},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		unlabelled("dep-mine", mine, true)
		unlabelled("dep-other", other, false) // owned, but not controlled, by other

		rs := startReplicas(t, srv, 1, newJournal())
		time.Sleep(30 * time.Second)
		synctest.Wait()

		dep := w.getDeployment(t, "dep-mine")
		bucket := strconv.Itoa(sharding.BucketOf(mine.UID, sharding.DefaultBuckets))
		assert.Equal(t, bucket, dep.Labels[sc.BucketLabel], "labelled with its Foo's bucket")
		assert.Equal(t, int32(2), *dep.Spec.Replicas, "then scaled, from the cache")
		assert.Equal(t, int32(2), dep.Status.AvailableReplicas, "and simulated, from the cache")
		assert.Equal(t, metav1.ConditionTrue, ready(w.getFoo(t, "mine")).Status)
		assert.Contains(t, cachedDeployments(t, rs[0]), ns+"/dep-mine")

		otherDep := w.getDeployment(t, "dep-other")
		assert.NotContains(t, otherDep.Labels, sc.BucketLabel, "a Deployment the Foo does not control is not touched")
		assert.Equal(t, sc.ReasonResourceExists, ready(w.getFoo(t, "other")).Reason)
		assert.NotContains(t, cachedDeployments(t, rs[0]), ns+"/dep-other")
		t.Logf("dep-mine labelled %s=%s and scaled to %d; dep-other left unlabelled, Foo other Ready=%s (%s)",
			sc.BucketLabel, dep.Labels[sc.BucketLabel], *dep.Spec.Replicas, ready(w.getFoo(t, "other")).Status, ready(w.getFoo(t, "other")).Reason)
	})
}
