package samplecontrollertest

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/internal/leasecut"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// The test ring's Lease timings: a crashed replica's buckets are free
// LeaseDuration after the last renewal its survivors saw.
const (
	ringLeaseDuration = 4 * time.Second
	ringRenewDeadline = 2 * time.Second
	ringRetryPeriod   = 500 * time.Millisecond
	ringFoos          = 40
	ringRuns          = 3
)

// ringJournal records every admitted Foo Reconcile of every replica: an
// interval of a global sequence, to catch two replicas on one key at once,
// and the wall time it ended, to time a takeover.
type ringJournal struct {
	mu   sync.Mutex
	seq  int
	open map[string]int // replica + " " + key -> start
	runs map[string][]ringRun
}

type ringRun struct {
	replica    string
	start, end int
	ended      time.Time
	ok         bool
}

func (j *ringJournal) observer(replica string) sc.Observer {
	return func(e sc.Event) {
		if e.Controller != sc.FooControllerName {
			return
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		j.seq++
		key := e.Request.String()
		switch e.Step {
		case sc.StepGetKey:
			j.open[replica+" "+key] = j.seq
		case sc.StepReconcile:
			j.runs[key] = append(j.runs[key], ringRun{replica, j.open[replica+" "+key], j.seq, time.Now(), e.Err == nil})
			delete(j.open, replica+" "+key)
		}
	}
}

func (j *ringJournal) overlaps() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for key, runs := range j.runs {
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				if a.replica != b.replica && a.start < b.end && b.start < a.end {
					out = append(out, fmt.Sprintf("%s: %s [%d,%d] and %s [%d,%d]", key, a.replica, a.start, a.end, b.replica, b.start, b.end))
				}
			}
		}
	}
	return out
}

// reconciledAfter returns when key was first reconciled without error by
// one of replicas after since (false: not yet).
func (j *ringJournal) reconciledAfter(key string, since time.Time, replicas []string) (time.Time, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.runs[key] {
		if r.ok && r.ended.After(since) && slices.Contains(replicas, r.replica) {
			return r.ended, true
		}
	}
	return time.Time{}, false
}

// ringReplica is one sharded sample controller in this process.
type ringReplica struct {
	name   string
	ctrl   *sc.SampleController
	leases *leasecut.Client
	cancel context.CancelFunc
	done   chan error
}

func (r *ringReplica) stop(t *testing.T) {
	t.Helper()
	if r.done == nil {
		return
	}
	r.cancel()
	select {
	case err := <-r.done:
		assert.NoError(t, err, "replica %s", r.name)
	case <-time.After(wait):
		t.Errorf("replica %s did not stop within %v", r.name, wait)
	}
	r.done = nil
}

// kill cuts the replica off the Leases and stops it: no renewal, no
// release; its buckets are free only once their Leases expire.
func (r *ringReplica) kill(t *testing.T) {
	r.leases.Cut()
	r.stop(t)
}

// startRing runs three sharded sample controllers of ring in namespace ns
// through c, each with its own Identity, in this process.
func startRing(t *testing.T, c *client.Client, ns, ring string, j *ringJournal) []*ringReplica {
	t.Helper()
	var rs []*ringReplica
	for i := range 3 {
		rs = append(rs, joinRing(t, c, ns, ring, "replica-"+strconv.Itoa(i), j))
	}
	return rs
}

// joinRing runs one sharded sample controller named name in ring, in this
// process, until the test ends or it is stopped. Every replica simulates
// its own buckets' Deployments (a killed one's are then simulated by their
// new holder).
func joinRing(t *testing.T, c *client.Client, ns, ring, name string, j *ringJournal) *ringReplica {
	t.Helper()
	api := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return c.Resource(gvr).Namespace(ns) }
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError}))
	r := &ringReplica{name: name, done: make(chan error, 1)}
	r.leases = leasecut.New(c.Resource(sc.LeasesGVR).Namespace(ns))
	var err error
	r.ctrl, err = sc.New(api, sc.Options{
		Namespace:           ns,
		DeploymentSimulator: true,
		Logger:              logger,
		Observer:            j.observer(r.name),
		Shard: &sc.ShardOptions{
			Ring:          ring,
			Identity:      r.name,
			LeaseClient:   r.leases,
			LeaseDuration: ringLeaseDuration,
			RenewDeadline: ringRenewDeadline,
			RetryPeriod:   ringRetryPeriod,
		},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- r.ctrl.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// shareReport says what is wrong with the live replicas' shares ("" when
// nothing): each must hold the buckets the ring gives it among the live
// replicas ([sharding.BucketOwners]), and cache exactly their Foos and
// their Foos' Deployments (foo-NN's is dep-NN, createRingFoos).
func shareReport(t *testing.T, live []*ringReplica, buckets map[string]int) string {
	var names []string
	for _, r := range live {
		names = append(names, r.name)
	}
	owners := sharding.BucketOwners(names, sharding.DefaultBuckets)
	holders := map[int]string{}
	for _, r := range live {
		held := r.ctrl.ShardMember().Held()
		var owned []int
		for b, owner := range owners {
			if owner == r.name {
				owned = append(owned, b)
			}
		}
		if !slices.Equal(held, owned) {
			return fmt.Sprintf("%s holds buckets %v, the ring gives it %v", r.name, held, owned)
		}
		var want []string
		for key, b := range buckets {
			if slices.Contains(held, b) {
				want = append(want, key)
			}
		}
		sort.Strings(want)
		inf, err := r.ctrl.Manager().GetInformer(sc.FoosGVR, &sc.Foo{})
		require.NoError(t, err)
		got := inf.GetIndexer().ListKeys()
		sort.Strings(got)
		if !slices.Equal(want, got) {
			return fmt.Sprintf("%s holds buckets %v, wants Foos %v, caches %v", r.name, held, want, got)
		}
		var wantDeps []string
		for _, key := range want {
			wantDeps = append(wantDeps, strings.Replace(key, "/foo-", "/dep-", 1))
		}
		deps, err := r.ctrl.Manager().GetInformer(sc.DeploymentsGVR, &sc.Deployment{})
		require.NoError(t, err)
		gotDeps := deps.GetIndexer().ListKeys()
		sort.Strings(gotDeps)
		if !slices.Equal(wantDeps, gotDeps) {
			return fmt.Sprintf("%s holds buckets %v, wants Deployments %v, caches %v", r.name, held, wantDeps, gotDeps)
		}
		for _, b := range held {
			if h, ok := holders[b]; ok {
				return fmt.Sprintf("bucket %d held by %s and %s", b, h, r.name)
			}
			holders[b] = r.name
		}
	}
	if len(holders) != sharding.DefaultBuckets {
		return fmt.Sprintf("%d of %d buckets held", len(holders), sharding.DefaultBuckets)
	}
	return ""
}

// waitShares waits until shareReport finds nothing wrong, and fails the
// test with its last report after wait.
func waitShares(t *testing.T, live []*ringReplica, buckets map[string]int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		report := shareReport(t, live, buckets)
		if report == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("caches did not split the Foos within %v: %s", wait, report)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createRingFoos creates n Foos in ns and returns key → bucket, from the
// uids the server gave them.
func createRingFoos(t *testing.T, c *client.Client, ns string, n int) map[string]int {
	t.Helper()
	foos := c.Resource(sc.FoosGVR).Namespace(ns)
	buckets := map[string]int{}
	for i := range n {
		replicas := int32(1)
		foo := &sc.Foo{
			TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("foo-%02d", i), Namespace: ns},
			Spec:       sc.FooSpec{DeploymentName: fmt.Sprintf("dep-%02d", i), Replicas: &replicas},
		}
		obj, err := foos.Create(t.Context(), foo, metav1.CreateOptions{})
		require.NoError(t, err)
		m, err := meta.Accessor(obj)
		require.NoError(t, err)
		buckets[ns+"/"+m.GetName()] = sharding.BucketOf(m.GetUID(), sharding.DefaultBuckets)
	}
	return buckets
}

// allReady waits until every Foo of ns reports its replicas available.
func allReady(t *testing.T, c *client.Client, ns string, buckets map[string]int) {
	t.Helper()
	foos := c.Resource(sc.FoosGVR).Namespace(ns)
	for key := range buckets {
		waitFor(t, foos, key[len(ns)+1:], "foo "+key+" ready", available(1))
	}
}

// takeover runs one ring of three replicas until it has split the Foos,
// kills replica-0, and returns how long it took until every Foo of its
// buckets had been reconciled by a survivor.
func takeover(t *testing.T, c *client.Client, ns, ring string, buckets map[string]int, j *ringJournal) time.Duration {
	t.Helper()
	rs := startRing(t, c, ns, ring, j)
	waitShares(t, rs, buckets)
	allReady(t, c, ns, buckets)
	for _, r := range rs {
		assert.NotEmpty(t, r.ctrl.ShardMember().Held(), "%s holds buckets", r.name)
	}

	var lost []string
	held := rs[0].ctrl.ShardMember().Held()
	for key, b := range buckets {
		if slices.Contains(held, b) {
			lost = append(lost, key)
		}
	}
	killed := time.Now()
	rs[0].kill(t)
	survivors := []string{rs[1].name, rs[2].name}
	deadline := killed.Add(wait)
	var last time.Time
	for _, key := range lost {
		for {
			at, ok := j.reconciledAfter(key, killed, survivors)
			if ok {
				last = later(last, at)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s (bucket %d) not reconciled by a survivor within %v", key, buckets[key], wait)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitShares(t, rs[1:], buckets)
	rs[1].stop(t)
	rs[2].stop(t)
	if len(lost) == 0 {
		return 0
	}
	return last.Sub(killed)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestShardedSampleControllerKillOneReplicaSurvivorsTakeItsFoos runs three
// sharded sample controllers against kube-apiserver with the
// ShardedListAndWatch gate on, three times over the same Foos: each replica
// caches exactly its buckets' Foos and their Deployments (the union is
// all, none in two caches), every Foo converges, no two replicas reconcile one Foo at once;
// then replica-0 is killed (no renewal, no release) and the test times how
// long until every Foo of its buckets has been reconciled by a survivor.
// It logs the takeover's p50 and max over the runs.
func TestShardedSampleControllerKillOneReplicaSurvivorsTakeItsFoos(t *testing.T) {
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	c := typedClient(t)
	runRing(t, c, ns, true)
}

// TestShardedSampleControllerOnAServerThatIgnoresTheShardSelector runs the
// same against the second control plane, kube-apiserver with the
// ShardedListAndWatch gate off: the server answers a sharded list with
// every Foo, every replica receives every Foo, and the client-side re-check
// gives the same caches, the same takeover and no overlap. (fakeapi's
// IgnoreShardSelector, which answers alike as fakeapitest shows, is run by
// the samplecontroller package's own tests, in process.)
func TestShardedSampleControllerOnAServerThatIgnoresTheShardSelector(t *testing.T) {
	cp := testenv.GateOff(t)
	testenv.InstallFooCRDOn(t, cp)
	ns := testenv.NamespaceOn(t, cp)
	runRing(t, testenv.ClientOf(t, cp, sc.NewScheme()), ns, false)
}

// runRing creates the Foos, checks whether the server filters a list by
// shardSelector as serverFilters says, and runs ringRuns takeovers.
func runRing(t *testing.T, c *client.Client, ns string, serverFilters bool) {
	buckets := createRingFoos(t, c, ns, ringFoos)
	bucket0, err := sharding.ShardSelectorFor([]int{0}, sharding.DefaultBuckets)
	require.NoError(t, err)
	list, err := c.Resource(sc.FoosGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{ShardSelector: bucket0})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	inBucket0 := 0
	for _, b := range buckets {
		if b == 0 {
			inBucket0++
		}
	}
	if serverFilters {
		assert.Len(t, items, inBucket0, "the server answers a list of bucket 0 with bucket 0's Foos")
	} else {
		assert.Len(t, items, ringFoos, "the server ignores shardSelector and answers with every Foo")
	}
	j := &ringJournal{open: map[string]int{}, runs: map[string][]ringRun{}}
	var took []time.Duration
	for run := range ringRuns {
		// A fresh ring each run, so no Lease of the last one lingers.
		took = append(took, takeover(t, c, ns, "foos-"+strconv.Itoa(run), buckets, j))
	}
	assert.Empty(t, j.overlaps(), "no two replicas reconcile one Foo at once")
	slices.Sort(took)
	t.Logf("takeover after killing 1 of 3 replicas (%d Foos, 16 buckets, LeaseDuration %v, RenewDeadline %v, RetryPeriod %v), %d runs: p50 %v, max %v (all %v)",
		ringFoos, ringLeaseDuration, ringRenewDeadline, ringRetryPeriod, ringRuns,
		took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), took)
	for _, d := range took {
		assert.Less(t, d, ringLeaseDuration+ringRenewDeadline+5*time.Second, "takeover within LeaseDuration + RenewDeadline + relist and reconcile")
	}
}
