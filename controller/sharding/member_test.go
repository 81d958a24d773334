package sharding_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
)

// The ring's timings, as in the sharding measurements: a crashed member's
// buckets wait LeaseDuration; a member that cannot renew stops acting after
// RenewDeadline.
const (
	ringLease   = 4 * time.Second
	ringRenew   = 3 * time.Second
	ringRetry   = 500 * time.Millisecond
	ringBuckets = 16
	// relist is how long the fake cache takes to resync after a change of
	// selector.
	relist = 300 * time.Millisecond
)

// ringLeases is a LeaseClient that a test can cut off: "fail" makes
// every call fail (a member partitioned from the API server, or crashed:
// it renews nothing), "hang" makes every call block until the test ends (a
// paused member, whose loop is stuck).
type ringLeases struct {
	sharding.LeaseClient
	fail atomic.Bool
	hang atomic.Bool
	end  <-chan struct{}
}

var errCut = errors.New("test: cut off from the API server")

func (l *ringLeases) cut(ctx context.Context) error {
	if l.hang.Load() {
		select {
		case <-l.end:
		case <-ctx.Done():
		}
		return errCut
	}
	if l.fail.Load() {
		return errCut
	}
	return nil
}

func (l *ringLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	if err := l.cut(ctx); err != nil {
		return nil, err
	}
	return l.LeaseClient.Get(ctx, name, opts)
}

func (l *ringLeases) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	if err := l.cut(ctx); err != nil {
		return nil, err
	}
	return l.LeaseClient.Create(ctx, obj, opts)
}

func (l *ringLeases) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if err := l.cut(ctx); err != nil {
		return nil, err
	}
	return l.LeaseClient.Update(ctx, obj, opts)
}

func (l *ringLeases) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := l.cut(ctx); err != nil {
		return nil, err
	}
	return l.LeaseClient.List(ctx, opts)
}

// ringKey is one object of the sharded resource: its key and uid.
type ringKey struct {
	req    controller.Request
	uid    types.UID
	bucket int
}

// interval is one reconcile of a key by a member, [start, end].
type interval struct {
	member     string
	start, end time.Time
}

// reconcileJournal records every reconcile of every key, on the bubble's one clock.
type reconcileJournal struct {
	mu   sync.Mutex
	runs map[string][]interval
}

func (j *reconcileJournal) record(key string, iv interval) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.runs[key] = append(j.runs[key], iv)
}

// overlaps returns every pair of reconciles of one key, by different
// members, whose intervals intersect.
func (j *reconcileJournal) overlaps() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for key, runs := range j.runs {
		runs = slices.Clone(runs)
		sort.Slice(runs, func(a, b int) bool { return runs[a].start.Before(runs[b].start) })
		for a := range runs {
			for b := a + 1; b < len(runs) && runs[b].start.Before(runs[a].end); b++ {
				if runs[a].member != runs[b].member {
					out = append(out, fmt.Sprintf("%s: %s %v and %s %v", key, runs[a].member, runs[a], runs[b].member, runs[b]))
				}
			}
		}
	}
	return out
}

// firstBy returns when member first started reconciling key after since.
func (j *reconcileJournal) firstBy(key, member string, since time.Time) (time.Time, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, iv := range j.runs[key] {
		if iv.member == member && !iv.start.Before(since) {
			return iv.start, true
		}
	}
	return time.Time{}, false
}

// count returns the number of reconciles journaled.
func (j *reconcileJournal) count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, runs := range j.runs {
		n += len(runs)
	}
	return n
}

// lastEnd returns when member's last reconcile ended.
func (j *reconcileJournal) lastEnd(member string) time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	var last time.Time
	for _, runs := range j.runs {
		for _, iv := range runs {
			if iv.member == member && iv.end.After(last) {
				last = iv.end
			}
		}
	}
	return last
}

// fakeCache plays a member's sharded informer: a change of selector takes
// relist, after which the cache holds the selector's buckets.
type fakeCache struct {
	mu     sync.Mutex
	synced string // the selector the cache holds, "" before the first sync
	calls  []string
}

func (c *fakeCache) SetShardSelector(ctx context.Context, expr string) error {
	c.mu.Lock()
	c.calls = append(c.calls, expr)
	c.mu.Unlock()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(relist):
	}
	c.mu.Lock()
	c.synced = expr
	c.mu.Unlock()
	return nil
}

func (c *fakeCache) holds(t *testing.T, uid types.UID) bool {
	c.mu.Lock()
	expr := c.synced
	c.mu.Unlock()
	if expr == "" {
		return false
	}
	return mustMatch(t, expr, uid)
}

// ringMember is one replica: the member, its cache, its lease client, and
// one worker per key that reconciles it through the guard.
type ringMember struct {
	name   string
	m      *sharding.Member
	cache  *fakeCache
	leases *ringLeases
	cancel context.CancelFunc
	done   chan struct{}
	// dead marks a crashed member: still sampled, no longer expected to
	// own anything.
	dead atomic.Bool
}

// ringWorld is a ring of members over fakeapi's Leases, ringBuckets
// buckets, three keys per bucket, a journal, and a sampler that checks
// every 100ms that no bucket is admitted by two members and that no member
// admits a bucket its cache has not synced.
type ringWorld struct {
	t        *testing.T
	srv      *fakeapi.Server
	keys     []ringKey
	byKey    map[string]ringKey
	journal  *reconcileJournal
	work     time.Duration // how long one reconcile takes
	end      chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	members  map[string]*ringMember
	problems []string
	// admitters[b] is every member seen admitting bucket b since the last
	// resetAdmitters.
	admitters []map[string]bool
}

func newRingWorld(t *testing.T, work time.Duration) *ringWorld {
	w := &ringWorld{
		t: t, srv: ctrltest.NewServer(t), byKey: map[string]ringKey{},
		journal: &reconcileJournal{runs: map[string][]interval{}},
		work:    work, end: make(chan struct{}), members: map[string]*ringMember{},
	}
	perBucket := map[int]int{}
	for i := 0; len(w.keys) < 3*ringBuckets; i++ {
		uid := types.UID(fmt.Sprintf("6f1c%04x-0000-4000-8000-%012d", i, i))
		b := sharding.BucketOf(uid, ringBuckets)
		if perBucket[b] == 3 {
			continue
		}
		perBucket[b]++
		k := ringKey{req: ctrltest.Req("ns", fmt.Sprintf("foo-%02d", len(w.keys))), uid: uid, bucket: b}
		w.keys = append(w.keys, k)
		w.byKey[k.req.String()] = k
	}
	w.resetAdmitters()
	t.Cleanup(func() {
		close(w.end)
		for _, m := range w.all() {
			m.cancel()
		}
		w.wg.Wait()
	})
	w.wg.Go(w.sample)
	return w
}

func (w *ringWorld) all() []*ringMember {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*ringMember
	for _, m := range w.members {
		out = append(out, m)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out
}

func (w *ringWorld) resetAdmitters() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.admitters = make([]map[string]bool, ringBuckets)
	for b := range w.admitters {
		w.admitters[b] = map[string]bool{}
	}
}

// bucketOf is the guard's BucketFunc: the test's table plays the cache.
func (w *ringWorld) bucketOf(r controller.Request) (int, bool) {
	k, ok := w.byKey[r.String()]
	return k.bucket, ok
}

// add starts a member called name.
func (w *ringWorld) add(name string) *ringMember {
	leases := &ringLeases{LeaseClient: w.srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"), end: w.end}
	cache := &fakeCache{}
	m, err := sharding.NewMember(sharding.Options{
		Client: leases, Ring: "foo", Identity: name, Buckets: ringBuckets,
		LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry,
		Cache: cache, Logger: ctrltest.Quiet,
	})
	require.NoError(w.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	rm := &ringMember{name: name, m: m, cache: cache, leases: leases, cancel: cancel, done: make(chan struct{})}
	w.mu.Lock()
	w.members[name] = rm
	w.mu.Unlock()
	w.wg.Go(func() {
		defer close(rm.done)
		assert.NoError(w.t, m.Start(ctx))
	})
	guarded := m.Guard(controller.ReconcilerFunc(func(ctx context.Context, r controller.Request) (controller.Result, error) {
		start := time.Now()
		select {
		case <-time.After(w.work):
		case <-w.end:
		}
		w.journal.record(r.String(), interval{member: name, start: start, end: time.Now()})
		return controller.Result{}, nil
	}), w.bucketOf)
	// One worker per key, as a workqueue never hands one key to two
	// workers of a member; it stops with the member.
	for _, k := range w.keys {
		w.wg.Go(func() {
			for {
				select {
				case <-rm.done:
					return
				case <-w.end:
					return
				default:
				}
				_, _ = guarded.Reconcile(ctx, k.req)
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
	return rm
}

// stop cancels a member's Start (a graceful leave) and waits for it.
func (w *ringWorld) stop(rm *ringMember) {
	rm.cancel()
	<-rm.done
	w.mu.Lock()
	delete(w.members, rm.name)
	w.mu.Unlock()
}

// sample checks the ring every 100ms until the test ends.
func (w *ringWorld) sample() {
	for {
		select {
		case <-w.end:
			return
		case <-time.After(100 * time.Millisecond):
		}
		admitted := map[int][]string{}
		for _, rm := range w.all() {
			for b := range ringBuckets {
				if !rm.m.Admits(b) {
					continue
				}
				admitted[b] = append(admitted[b], rm.name)
				for _, k := range w.keys {
					if k.bucket == b && !rm.cache.holds(w.t, k.uid) {
						w.problem(fmt.Sprintf("%v: %s admits bucket %d before its cache synced it", time.Now(), rm.name, b))
						break
					}
				}
			}
		}
		w.mu.Lock()
		for b, names := range admitted {
			for _, n := range names {
				w.admitters[b][n] = true
			}
		}
		w.mu.Unlock()
		for b, names := range admitted {
			if len(names) > 1 {
				w.problem(fmt.Sprintf("%v: bucket %d admitted by %v at once", time.Now(), b, names))
			}
		}
	}
}

func (w *ringWorld) problem(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, p)
}

// holders returns, for every bucket, the one member admitting it ("" for
// none).
func (w *ringWorld) holders() []string {
	out := make([]string, ringBuckets)
	for _, rm := range w.all() {
		for b := range ringBuckets {
			if rm.m.Admits(b) {
				out[b] = rm.name
			}
		}
	}
	return out
}

// settle waits, up to a minute, until every bucket is admitted by the owner
// the ring gives it among the running members, and returns when it was.
func (w *ringWorld) settle() time.Time {
	var names []string
	for _, rm := range w.all() {
		if !rm.dead.Load() {
			names = append(names, rm.name)
		}
	}
	want := sharding.BucketOwners(names, ringBuckets)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if slices.Equal(w.holders(), want) {
			return time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.FailNow(w.t, "ring did not settle", "want %v, have %v", want, w.holders())
	return time.Time{}
}

// check asserts what must hold at every instant of every test.
func (w *ringWorld) check() {
	w.mu.Lock()
	problems := slices.Clone(w.problems)
	w.mu.Unlock()
	assert.Empty(w.t, problems, "the sampler saw a bucket admitted twice, or before its cache synced")
	assert.Empty(w.t, w.journal.overlaps(), "reconciles of one key overlapped across members")
}

// leaseHolder reads a Lease's holder and renewTime from the server.
func (w *ringWorld) leaseHolder(name string) (string, time.Time) {
	obj, err := w.srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(w.t, err)
	u := obj.(*unstructured.Unstructured)
	holder, _, _ := unstructured.NestedString(u.Object, "spec", "holderIdentity")
	renew, _, _ := unstructured.NestedString(u.Object, "spec", "renewTime")
	at, err := time.Parse(metav1.RFC3339Micro, renew)
	require.NoError(w.t, err)
	return holder, at
}

func bucketsOf(owners []string, member string) []int {
	var out []int
	for b, o := range owners {
		if o == member {
			out = append(out, b)
		}
	}
	return out
}

// TestShardRingThreeMembersShareSixteenBuckets: three members start at once
// and agree, through their member Leases, on who owns each of 16 buckets;
// once settled every bucket is admitted by exactly its rendezvous owner,
// which reconciles each of its keys. At no sampled instant is a bucket
// admitted by two members or admitted before the cache synced it, and no
// two members' reconciles of one key overlap, including while the first
// member to start held every bucket and handed most of them over.
// Diagram: step 9 (who may run it). client-go: none; Knative bucket leader election.
func TestShardRingThreeMembersShareSixteenBuckets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newRingWorld(t, 200*time.Millisecond)
		for _, n := range []string{"replica-0", "replica-1", "replica-2"} {
			w.add(n)
		}
		settled := w.settle()
		time.Sleep(2 * time.Second)

		owners := w.holders()
		assert.Equal(t, sharding.BucketOwners([]string{"replica-0", "replica-1", "replica-2"}, ringBuckets), owners)
		for _, rm := range w.all() {
			assert.Equal(t, bucketsOf(owners, rm.name), rm.m.Held(), "%s holds the Leases of what it admits, no more", rm.name)
			assert.Equal(t, []string{"replica-0", "replica-1", "replica-2"}, rm.m.Members())
		}
		for b := range ringBuckets {
			holder, _ := w.leaseHolder(fmt.Sprintf("foo-bucket-%d", b))
			assert.Equal(t, owners[b], holder, "bucket %d's Lease", b)
		}
		ringLeases, err := w.srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system").List(context.Background(), metav1.ListOptions{LabelSelector: sharding.RingLabel + "=foo"})
		require.NoError(t, err)
		assert.Len(t, ringLeases.(*unstructured.UnstructuredList).Items, 3+ringBuckets, "three member Leases and a Lease per bucket, found by the ring label")
		for _, k := range w.keys {
			_, ok := w.journal.firstBy(k.req.String(), owners[k.bucket], settled)
			assert.True(t, ok, "%s (bucket %d) reconciled by its owner %s", k.req, k.bucket, owners[k.bucket])
		}
		t.Logf("settled after %v: %v", settled.Sub(time.Unix(946684800, 0)), owners)
		w.check()
	})
}

// TestShardRingGracefulLeaveHandsBucketsOverAfterInFlightReconciles: a
// member that stops releases each bucket only after its in-flight
// reconciles (1.5s each) ended, so the new owners take over its buckets well
// within LeaseDuration and never reconcile a key while the leaver still does.
// Its member Lease is released too, so the survivors' ring drops it at once.
// Diagram: step 9. client-go: tools/leaderelection ReleaseOnCancel, per bucket.
func TestShardRingGracefulLeaveHandsBucketsOverAfterInFlightReconciles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newRingWorld(t, 1500*time.Millisecond)
		var leaver *ringMember
		for _, n := range []string{"replica-0", "replica-1", "replica-2"} {
			leaver = w.add(n)
		}
		w.settle()
		time.Sleep(time.Second) // reconciles are in flight
		gone := bucketsOf(w.holders(), leaver.name)
		require.NotEmpty(t, gone)
		inflight := 0
		for _, b := range gone {
			inflight += leaver.m.InFlight(b)
		}
		require.Positive(t, inflight, "the leaver is mid-reconcile")

		stoppedAt := time.Now()
		w.stop(leaver)
		leftAfter := time.Since(stoppedAt)
		// Handed over: every one of its buckets' Leases names a survivor.
		// (The ring of the survivors may also move a bucket or two between
		// them, each after its own reconciles end; settle waits for that.)
		for {
			handed := true
			for _, b := range gone {
				if holder, _ := w.leaseHolder(fmt.Sprintf("foo-bucket-%d", b)); holder == "" || holder == leaver.name {
					handed = false
				}
			}
			if handed {
				break
			}
			require.Less(t, time.Since(stoppedAt), time.Minute, "the leaver's buckets were not taken")
			time.Sleep(25 * time.Millisecond)
		}
		handedOver := time.Since(stoppedAt)
		settled := w.settle()

		after := w.holders()
		for _, b := range gone {
			holder, _ := w.leaseHolder(fmt.Sprintf("foo-bucket-%d", b))
			assert.Equal(t, after[b], holder)
			assert.NotEqual(t, leaver.name, holder)
		}
		for _, b := range gone {
			assert.Zero(t, leaver.m.InFlight(b), "released only after its reconciles ended")
		}
		t.Logf("%s left with %d reconciles in flight; Start returned %v later; %v taken over %v after the stop; the ring settled %v after it",
			leaver.name, inflight, leftAfter, gone, handedOver, settled.Sub(stoppedAt))
		lastEnd := w.journal.lastEnd(leaver.name)
		assert.True(t, lastEnd.After(stoppedAt), "reconciles were in flight at the stop")
		assert.False(t, stoppedAt.Add(leftAfter).Before(lastEnd), "Start returned only after they ended")
		assert.Less(t, handedOver, ringLease, "no need to wait for expiry")
		holder, _ := w.leaseHolder("foo-member-" + leaver.name)
		assert.Empty(t, holder, "member Lease released")
		w.check()
	})
}

// TestShardRingCrashedMemberLosesBucketsAfterLeaseDuration: a member that
// stops renewing stops admitting its keys RenewDeadline after its last
// renewal; the survivors take its buckets LeaseDuration after that renewal,
// not before, and within a few retry periods after. Two ways to stop:
// every call to the API server fails (crashed, or partitioned: its loop
// sees the failures and drops the buckets), or every call hangs (paused:
// its loop is stuck and only the guard's clock check stops its workers).
// Diagram: step 9. client-go: tools/leaderelection (LeaseDuration, RenewDeadline), per bucket.
func TestShardRingCrashedMemberLosesBucketsAfterLeaseDuration(t *testing.T) {
	for _, mode := range []string{"fail", "hang"} {
		t.Run(mode, func(t *testing.T) { testShardRingCrash(t, mode) })
	}
}

func testShardRingCrash(t *testing.T, mode string) {
	synctest.Test(t, func(t *testing.T) {
		w := newRingWorld(t, 200*time.Millisecond)
		var crashed *ringMember
		for _, n := range []string{"replica-0", "replica-1", "replica-2"} {
			crashed = w.add(n)
		}
		w.settle()
		gone := bucketsOf(w.holders(), crashed.name)
		require.NotEmpty(t, gone)

		if mode == "fail" {
			crashed.leases.fail.Store(true)
		} else {
			crashed.leases.hang.Store(true)
		}
		cutAt := time.Now()
		// Its buckets are valid while its member Lease is: that Lease's
		// last renewal is where both clocks start.
		_, lastRenew := w.leaseHolder("foo-member-" + crashed.name)
		w.resetAdmitters()
		takenAt := map[int]time.Time{}
		stoppedAdmitting := time.Time{}
		for len(takenAt) < len(gone) && time.Since(cutAt) < time.Minute {
			time.Sleep(50 * time.Millisecond)
			holders := w.holders()
			if stoppedAdmitting.IsZero() && len(bucketsOf(holders, crashed.name)) == 0 {
				stoppedAdmitting = time.Now()
			}
			for _, b := range gone {
				if _, ok := takenAt[b]; !ok && holders[b] != "" && holders[b] != crashed.name {
					takenAt[b] = time.Now()
				}
			}
		}
		require.Len(t, takenAt, len(gone), "every bucket of the crashed member was taken")
		w.stop(crashed)
		w.settle()

		t.Logf("last renewal %v before the cut; %s stopped admitting %v after it",
			cutAt.Sub(lastRenew), crashed.name, stoppedAdmitting.Sub(lastRenew))
		assert.LessOrEqual(t, stoppedAdmitting.Sub(lastRenew), ringRenew+100*time.Millisecond)
		for _, b := range gone {
			after := takenAt[b].Sub(lastRenew)
			t.Logf("bucket %d taken %v after the last renewal", b, after)
			assert.GreaterOrEqual(t, after, ringLease, "not before LeaseDuration")
			assert.LessOrEqual(t, after, ringLease+3*ringRetry+relist+100*time.Millisecond)
		}
		w.check()
	})
}

// TestShardRingIgnoresLeasesThatOnlyLookLikeBucketLeases: a Lease of the
// ring named "foo-bucket-00" (or "foo-bucket-000") is no bucket's. When the
// holder of bucket 0 crashes, a survivor takes bucket 0 after LeaseDuration
// as usual; read loosely, the stray Lease's record and the real one's would
// take turns as bucket 0's, each change restarting the expiry clock, and
// bucket 0 would never be taken.
// Diagram: steps 8-9 (who may run a key). client-go: tools/leaderelection observedTime (expiry by the local clock).
func TestShardRingIgnoresLeasesThatOnlyLookLikeBucketLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newRingWorld(t, 200*time.Millisecond)
		for _, n := range []string{"replica-0", "replica-1"} {
			w.add(n)
		}
		w.settle()
		leases := w.srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system")
		for _, name := range []string{"foo-bucket-00", "foo-bucket-000"} {
			stray := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
				"metadata": map[string]any{"name": name, "labels": map[string]any{sharding.RingLabel: "foo"}},
				"spec": map[string]any{"holderIdentity": "someone-else", "leaseDurationSeconds": int64(3600),
					"renewTime": time.Now().UTC().Format(metav1.RFC3339Micro)},
			}}
			_, err := leases.Create(context.Background(), stray, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		holder, _ := w.leaseHolder("foo-bucket-0")
		var crashed *ringMember
		for _, m := range w.all() {
			if m.name == holder {
				crashed = m
			}
		}
		require.NotNil(t, crashed, "bucket 0 is held by a member of the ring")

		crashed.leases.fail.Store(true)
		cutAt := time.Now()
		var takenBy string
		for time.Since(cutAt) < 3*ringLease {
			time.Sleep(ringRetry)
			if h := w.holders()[0]; h != "" && h != holder {
				takenBy = h
				break
			}
		}
		w.stop(crashed)

		t.Logf("%s crashed holding bucket 0, beside Leases foo-bucket-00 and foo-bucket-000; bucket 0 taken by %q %v later", holder, takenBy, time.Since(cutAt))
		require.NotEmpty(t, takenBy, "bucket 0 was taken over")
		assert.LessOrEqual(t, time.Since(cutAt), ringLease+3*ringRetry+relist)
		w.check()
	})
}

// TestShardRingScaleOutAndInMovesOnlyBucketsWhoseOwnerChanged: 3 → 4 → 3.
// The buckets whose owner the ring changes (most to the fourth member, a
// few between the others to keep the split even) are each handed over
// gracefully by their old owner; no other bucket ever changes hands, not
// even for a sampled instant; when it leaves, exactly those go back.
// Diagram: step 9. client-go: none; rendezvous hashing.
func TestShardRingScaleOutAndInMovesOnlyBucketsWhoseOwnerChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newRingWorld(t, 300*time.Millisecond)
		three := []string{"replica-0", "replica-1", "replica-2"}
		for _, n := range three {
			w.add(n)
		}
		w.settle()
		before := w.holders()

		w.resetAdmitters()
		fourth := w.add("replica-3")
		w.settle()
		fourOwners := w.holders()
		assert.Equal(t, sharding.BucketOwners(append(slices.Clone(three), "replica-3"), ringBuckets), fourOwners)
		var moved, toFourth []int
		for b := range ringBuckets {
			if fourOwners[b] != before[b] {
				moved = append(moved, b)
				if fourOwners[b] == "replica-3" {
					toFourth = append(toFourth, b)
				}
			}
		}
		w.assertOnlyMovedChangedHands(before, moved)
		assert.Len(t, toFourth, ringBuckets/4, "the fourth member gets its fair share")
		t.Logf("3 → 4: buckets %v moved, %v of them to replica-3", moved, toFourth)

		w.resetAdmitters()
		w.stop(fourth)
		w.settle()
		assert.Equal(t, before, w.holders(), "4 → 3: each bucket back with its old owner")
		w.assertOnlyMovedChangedHands(fourOwners, moved)
		w.check()
	})
}

// assertOnlyMovedChangedHands checks, from the sampler, that every bucket
// outside moved was admitted by its owner in was and by no one else.
func (w *ringWorld) assertOnlyMovedChangedHands(was []string, moved []int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for b := range ringBuckets {
		if slices.Contains(moved, b) {
			continue
		}
		var seen []string
		for n := range w.admitters[b] {
			seen = append(seen, n)
		}
		sort.Strings(seen)
		assert.Equal(w.t, []string{was[b]}, seen, "bucket %d stayed with its owner", b)
	}
}

// guardWorld is one member and a recording Reconciler behind its guard.
type guardWorld struct {
	m       *sharding.Member
	leases  *ringLeases
	guarded controller.Reconciler
	ran     atomic.Int32
	block   chan struct{} // when set, the Reconciler waits on it
}

func newGuardWorld(t *testing.T, srv *fakeapi.Server, name string, cache sharding.Cache, end chan struct{}) *guardWorld {
	g := &guardWorld{leases: &ringLeases{LeaseClient: srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"), end: end}}
	var err error
	g.m, err = sharding.NewMember(sharding.Options{
		Client: g.leases, Ring: "foo", Identity: name, Buckets: ringBuckets,
		LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry,
		ReleaseTimeout: 2 * time.Second, Cache: cache, Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	g.guarded = g.m.Guard(controller.ReconcilerFunc(func(ctx context.Context, r controller.Request) (controller.Result, error) {
		g.ran.Add(1)
		if g.block != nil {
			<-g.block
		}
		return controller.Result{}, nil
	}), func(r controller.Request) (int, bool) {
		var b int
		_, err := fmt.Sscanf(r.Name, "bucket-%d", &b)
		return b, err == nil
	})
	return g
}

// try reconciles a key of bucket b and reports whether the Reconciler ran,
// and the guard's Result.
func (g *guardWorld) try(t *testing.T, b int) (bool, controller.Result) {
	before := g.ran.Load()
	res, err := g.guarded.Reconcile(context.Background(), ctrltest.Req("ns", fmt.Sprintf("bucket-%d", b)))
	require.NoError(t, err)
	return g.ran.Load() > before, res
}

func (g *guardWorld) run(t *testing.T, ctx context.Context) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, g.m.Start(ctx))
	}()
	return done
}

// TestShardGuardAdmitsOnlyHeldSyncedFreshBuckets: the guard refuses a key
// whose object is not cached, a key of a bucket whose Lease is held but
// whose cache has not synced yet (gain waits for the relist), and a key of
// a bucket whose Lease was not renewed within RenewDeadline (a paused
// member); it runs keys of held, synced, freshly renewed buckets.
// Diagram: steps 1-9 (admission after the relist). client-go: none; timebertt pkg/shard/controller Reconciler.
func TestShardGuardAdmitsOnlyHeldSyncedFreshBuckets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		end := make(chan struct{})
		defer close(end)
		synced := make(chan struct{})
		var calls atomic.Int32
		cache := sharding.CacheFunc(func(ctx context.Context, expr string) error {
			if calls.Add(1) == 1 {
				select { // the first relist takes until the test says
				case <-synced:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
		g := newGuardWorld(t, srv, "solo", cache, end)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		ran, _ := g.try(t, 3)
		assert.False(t, ran, "before Start nothing is held")
		res, err := g.guarded.Reconcile(ctx, ctrltest.Req("ns", "not-cached"))
		require.NoError(t, err)
		assert.Zero(t, res)
		assert.Zero(t, g.ran.Load(), "a key with no bucket is refused")

		g.run(t, ctx)
		time.Sleep(2 * ringRetry)
		require.Len(t, g.m.Held(), ringBuckets, "alone, it holds every bucket's Lease")
		ran, res = g.try(t, 3)
		assert.False(t, ran, "held but not synced: refused")
		assert.Equal(t, controller.Result{RequeueAfter: ringRetry}, res, "requeued: it runs once the relist is done")
		t.Logf("bucket 3 held, cache not synced: ran %v, requeued after %v", ran, res.RequeueAfter)
		ran, res = g.try(t, 3+ringBuckets)
		assert.False(t, ran)
		assert.Zero(t, res, "a bucket that is not there is no one's: dropped")

		close(synced)
		synctest.Wait()
		ran, _ = g.try(t, 3)
		assert.True(t, ran, "held, synced, fresh: runs")
		t.Logf("bucket 3 held, synced, freshly renewed: ran %v", ran)
		assert.Zero(t, g.m.InFlight(3), "the count is back to 0 after the reconcile")

		// Pause: every call to the API server hangs, so no renewal succeeds
		// and the member's loop cannot even notice.
		g.leases.hang.Store(true)
		time.Sleep(ringRenew - ringRetry)
		ran, _ = g.try(t, 3)
		assert.True(t, ran, "within RenewDeadline of the last renewal: still runs")
		time.Sleep(ringRetry + 10*time.Millisecond)
		ran, res = g.try(t, 3)
		assert.False(t, ran, "RenewDeadline after the last renewal: refused")
		assert.Equal(t, controller.Result{RequeueAfter: ringRetry}, res, "requeued: the renewal may yet succeed")
		t.Logf("paused, RenewDeadline (%v) after the last renewal: ran %v, requeued after %v", ringRenew, ran, res.RequeueAfter)
		assert.Contains(t, g.m.Held(), 3, "the member still thinks it holds the Lease: only the clock refuses")
		cancel()
	})
}

// TestShardGuardReleasingBucketRefusesNewKeysAndWaitsForInFlight: when a
// second member joins, the first releases the buckets the ring moves: it
// refuses their new keys at once, keeps the Lease (renewing it) while a
// reconcile is in flight, past ReleaseTimeout, and releases it only when
// that reconcile ends; then the second member admits the bucket.
// Diagram: step 9. client-go: none; timebertt drain acknowledgment, per bucket.
func TestShardGuardReleasingBucketRefusesNewKeysAndWaitsForInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		end := make(chan struct{})
		defer close(end)
		a := newGuardWorld(t, srv, "replica-0", nil, end)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a.run(t, ctx)
		time.Sleep(2 * ringRetry)
		require.Len(t, a.m.Held(), ringBuckets)

		moving := bucketsOf(sharding.BucketOwners([]string{"replica-0", "replica-1"}, ringBuckets), "replica-1")
		require.NotEmpty(t, moving)
		b := moving[0]
		a.block = make(chan struct{})
		inflight := make(chan bool)
		go func() {
			ran, _ := a.try(t, b)
			inflight <- ran
		}()
		synctest.Wait()
		require.Equal(t, 1, a.m.InFlight(b))

		second := newGuardWorld(t, srv, "replica-1", nil, end)
		second.run(t, ctx)
		time.Sleep(2 * ringRetry)
		assert.False(t, a.m.Admits(b), "releasing: new keys refused")
		var ran bool
		go func() { ran, _ = a.try(t, b) }()
		synctest.Wait()
		assert.False(t, ran, "a new key of the releasing bucket did not run")
		time.Sleep(3 * time.Second) // past ReleaseTimeout (2s)
		assert.Contains(t, a.m.Held(), b, "in flight past ReleaseTimeout: the Lease is kept")
		assert.False(t, second.m.Admits(b), "and the new owner waits")
		t.Logf("replica-1 joined; bucket %d releasing: a new key ran %v; one reconcile in flight past ReleaseTimeout, the Lease still held by replica-0", b, ran)
		holder, _, _ := leaseOf(t, srv, fmt.Sprintf("foo-bucket-%d", b))
		assert.Equal(t, "replica-0", holder)

		close(a.block)
		assert.True(t, <-inflight)
		time.Sleep(3 * ringRetry) // a's next round releases, second's next acquires
		assert.NotContains(t, a.m.Held(), b, "released once the reconcile ended")
		assert.True(t, second.m.Admits(b), "the new owner admits it")
		holder, _, _ = leaseOf(t, srv, fmt.Sprintf("foo-bucket-%d", b))
		assert.Equal(t, "replica-1", holder)
		t.Logf("the reconcile ended: bucket %d released, its Lease now held by %s", b, holder)
		cancel()
	})
}

func leaseOf(t *testing.T, srv *fakeapi.Server, name string) (string, int64, error) {
	t.Helper()
	obj, err := srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	u := obj.(*unstructured.Unstructured)
	holder, _, _ := unstructured.NestedString(u.Object, "spec", "holderIdentity")
	tr, _, _ := unstructured.NestedInt64(u.Object, "spec", "leaseTransitions")
	return holder, tr, nil
}

// TestNewShardMemberRefusesBadOptions: missing client or ring, negative
// counts, the elector's duration rules, and Warm without a cache that
// can confirm part of its share give clear errors.
// Diagram: none. client-go: tools/leaderelection NewLeaderElector validation.
func TestNewShardMemberRefusesBadOptions(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	leases := srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system")
	for _, c := range []struct {
		opts sharding.Options
		want string
	}{
		{sharding.Options{Ring: "foo"}, "Client is nil"},
		{sharding.Options{Client: leases}, "Ring"},
		{sharding.Options{Client: leases, Ring: "Foo/x"}, "must be a DNS label"},
		{sharding.Options{Client: leases, Ring: strings.Repeat("a", 41)}, "at most 40"},
		{sharding.Options{Client: leases, Ring: "foo", Buckets: -1}, "Buckets is -1: want 1 to 1024"},
		{sharding.Options{Client: leases, Ring: "foo", Buckets: sharding.MaxBuckets + 1}, "Buckets is 1025: want 1 to 1024"},
		{sharding.Options{Client: leases, Ring: "foo", Identity: "host_1f2e"}, `Identity "host_1f2e" cannot end a Lease name`},
		{sharding.Options{Client: leases, Ring: "foo", Identity: "Replica-0"}, `Identity "Replica-0" cannot end a Lease name`},
		{sharding.Options{Client: leases, Ring: "foo", JoinTimeout: -time.Second}, "JoinTimeout is negative"},
		{sharding.Options{Client: leases, Ring: "foo", RenewDeadline: 20 * time.Second}, "must be greater than RenewDeadline"},
		{sharding.Options{Client: leases, Ring: "foo", Warm: true}, "Warm needs a Cache that is a WarmCache: <nil> is not one"},
		{sharding.Options{Client: leases, Ring: "foo", Warm: true, Cache: sharding.Caches(sharding.CacheFunc(func(context.Context, string) error { return nil }))}, "sharding.CacheFunc is not one"},
	} {
		_, err := sharding.NewMember(c.opts)
		if assert.Error(t, err) {
			assert.True(t, strings.HasPrefix(err.Error(), "controller: shard member: "), err.Error())
			assert.Contains(t, err.Error(), c.want)
		}
	}
	m, err := sharding.NewMember(sharding.Options{Client: leases, Ring: "foo"})
	require.NoError(t, err)
	assert.Equal(t, sharding.DefaultBuckets, m.Buckets())
	assert.NotEmpty(t, m.Identity())
}

// TestShardMemberWithoutAnIdentityJoinsItsRing: a member given no identity
// makes one from the host name that can end a Lease name (the host name
// with "_" and a random suffix, leader election's default, cannot), takes
// its member Lease and holds every bucket of a ring of one.
// Diagram: steps 8-9 (who may run a key). client-go: controller-runtime leader election's default identity (host name + UUID).
func TestShardMemberWithoutAnIdentityJoinsItsRing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m, err := sharding.NewMember(sharding.Options{
			Client: srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"), Ring: "foo", Buckets: 4,
			LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry, Logger: ctrltest.Quiet,
		})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- m.Start(ctx) }()

		time.Sleep(2 * ringRetry)
		synctest.Wait()
		held := m.Held()
		cancel()

		t.Logf("identity %q; held %v after two rounds", m.Identity(), held)
		assert.Regexp(t, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?-[0-9a-f]{8}$`, m.Identity())
		assert.Equal(t, []int{0, 1, 2, 3}, held)
		assert.NoError(t, <-done)
		holder, _, err := leaseOf(t, srv, "foo-member-"+m.Identity())
		require.NoError(t, err)
		assert.Empty(t, holder, "released on leaving")
	})
}

// TestShardMemberIdentityFromHostFitsALeaseName: the default identity of
// every host name is a DNS label that ends a Lease name.
// Diagram: none. client-go: none.
func TestShardMemberIdentityFromHostFitsALeaseName(t *testing.T) {
	for host, want := range map[string]string{
		"worker-7":                "worker-7-0a1b2c3d",
		"Build_Host.example.COM":  "build-host-example-com-0a1b2c3d",
		"--x..y__":                "x-y-0a1b2c3d",
		"":                        "member-0a1b2c3d",
		"___":                     "member-0a1b2c3d",
		strings.Repeat("ab-", 30): "ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-a-0a1b2c3d",
		"ünïcode-hôst":            "n-code-h-st-0a1b2c3d",
	} {
		got := sharding.IdentityFromHost(host, "0a1b2c3d")

		assert.Equal(t, want, got, "host %q", host)
		assert.Empty(t, validation.IsDNS1123Label(got), "host %q", host)
	}
}

// TestShardMemberThatCannotJoinSaysSoAndStops: a member whose member Lease
// cannot be taken (here every call to the API server fails) warns every
// round with the reason, then, after JoinTimeout, logs an error and Start
// returns one naming the ring and the reason; it never sits in the ring
// silently holding nothing. (A refusal, 403, is logged at ERROR from the
// first round: TestShardMemberRefusedItsLeasesLogsTheRefusalAsAnError.)
// Diagram: steps 8-9 (who may run a key). client-go: tools/leaderelection (retries forever at V(4)); this package bounds it.
func TestShardMemberThatCannotJoinSaysSoAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs ctrltest.LogBuffer
		leases := &ringLeases{LeaseClient: ctrltest.NewServer(t).Resource(ctrltest.LeasesGVR).Namespace("kube-system"), end: make(chan struct{})}
		leases.fail.Store(true)
		m, err := sharding.NewMember(sharding.Options{
			Client: leases, Ring: "foo", Identity: "replica-0", Buckets: 4,
			LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry,
			Logger: logs.Logger(),
		})
		require.NoError(t, err)
		began := time.Now()

		err = m.Start(context.Background())

		took := time.Since(began)
		t.Logf("Start returned after %v: %v", took, err)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "could not join ring foo in 8.5s")
		assert.ErrorIs(t, err, errCut)
		assert.Equal(t, 2*ringLease+ringRetry, took)
		assert.Contains(t, logs.String(), `level=WARN msg="not in the ring yet: could not take the member Lease" ring=foo member=replica-0 lease=foo-member-replica-0`)
		assert.Contains(t, logs.String(), `level=ERROR msg="could not join the ring: giving up"`)
		assert.Empty(t, m.Held())
	})
}

// TestShardLeaseIsNoFencePausedWriteStoppedOnlyByResourceVersion shows the
// limit of any Lease scheme. replica-0 reads a ConfigMap inside a reconcile
// and is paused (its calls to the API server hang) before it writes. Its
// guard stops admitting keys RenewDeadline after its last renewal;
// replica-1 takes the bucket after LeaseDuration and writes the ConfigMap.
// Then replica-0 resumes and finishes its reconcile: nothing in the Lease
// stops it. Its Update, carrying the resourceVersion it read, fails with a
// Conflict; the same write sent blind (no resourceVersion) would have
// overwritten replica-1's.
// Diagram: step 9. client-go: tools/leaderelection ("does not guarantee ... fencing"); optimistic concurrency.
func TestShardLeaseIsNoFencePausedWriteStoppedOnlyByResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		end := make(chan struct{})
		defer close(end)
		cms := srv.Resource(ctrltest.CMGVR).Namespace("ns")
		cm := ctrltest.Create(t, srv, ctrltest.NewCM("ns", "x"))
		bucket := sharding.BucketOf(cm.GetUID(), ringBuckets)
		bucketOf := func(controller.Request) (int, bool) { return bucket, true }
		// write is a reconcile: read the ConfigMap, wait for resume, then
		// write who did it with an Update of what was read.
		write := func(by string, resume <-chan struct{}, read chan<- struct{}, result chan<- error) controller.Reconciler {
			return controller.ReconcilerFunc(func(ctx context.Context, r controller.Request) (controller.Result, error) {
				obj, err := cms.Get(ctx, r.Name, metav1.GetOptions{})
				require.NoError(t, err)
				u := obj.(*unstructured.Unstructured)
				close(read)
				<-resume
				require.NoError(t, unstructured.SetNestedField(u.Object, by, "data", "by"))
				_, err = cms.Update(ctx, u, metav1.UpdateOptions{})
				result <- err
				return controller.Result{}, nil
			})
		}
		member := func(name string) (*sharding.Member, *ringLeases) {
			leases := &ringLeases{LeaseClient: srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"), end: end}
			m, err := sharding.NewMember(sharding.Options{
				Client: leases, Ring: "foo", Identity: name, Buckets: ringBuckets,
				LeaseDuration: ringLease, RenewDeadline: ringRenew, RetryPeriod: ringRetry, Logger: ctrltest.Quiet,
			})
			require.NoError(t, err)
			return m, leases
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		zombie, zombieLeases := member("replica-0")
		go func() { _ = zombie.Start(ctx) }()
		time.Sleep(2 * ringRetry)
		require.True(t, zombie.Admits(bucket))

		resume, read, zombieResult := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			_, _ = zombie.Guard(write("replica-0", resume, read, zombieResult), bucketOf).Reconcile(ctx, ctrltest.Req("ns", "x"))
		}()
		<-read
		zombieLeases.hang.Store(true) // paused mid-reconcile
		pausedAt := time.Now()

		successor, _ := member("replica-1")
		go func() { _ = successor.Start(ctx) }()
		for !successor.Admits(bucket) {
			time.Sleep(50 * time.Millisecond)
		}
		tookOver := time.Since(pausedAt)
		assert.False(t, zombie.Admits(bucket), "the paused member's guard refuses new keys")
		successorResult, successorRead := make(chan error, 1), make(chan struct{})
		now := make(chan struct{})
		close(now)
		_, err := successor.Guard(write("replica-1", now, successorRead, successorResult), bucketOf).Reconcile(ctx, ctrltest.Req("ns", "x"))
		require.NoError(t, err)
		require.NoError(t, <-successorResult, "the new owner writes")

		close(resume) // the paused member wakes up and finishes its reconcile
		zombieErr := <-zombieResult
		t.Logf("replica-0 paused mid-reconcile; replica-1 took the bucket %v later and wrote; replica-0 resumed, and its Update said: %v", tookOver, zombieErr)
		assert.True(t, apierrors.IsConflict(zombieErr), "only the resourceVersion precondition stops the stale write: %v", zombieErr)
		obj, err := cms.Get(ctx, "x", metav1.GetOptions{})
		require.NoError(t, err)
		by, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "data", "by")
		assert.Equal(t, "replica-1", by)

		blind := cm.DeepCopy()
		require.NoError(t, unstructured.SetNestedField(blind.Object, "replica-0", "data", "by"))
		blind.SetResourceVersion("")
		_, err = cms.Update(ctx, blind, metav1.UpdateOptions{})
		assert.NoError(t, err, "the same write without a precondition is accepted: the Lease did not stop it")
		cancel()
	})
}

// TestShardRingTenRoundsOfKillAndScaleNeverOverlap: ten rounds, each adding
// a member and stopping it gracefully, then crashing one (its calls fail)
// or pausing one (its calls hang) and starting a fresh one in its place. After every change the ring
// settles on the rendezvous owners; across all rounds the sampler never
// sees a bucket admitted twice and the journal holds no overlapping
// reconciles of one key.
// Diagram: step 9. client-go: none.
func TestShardRingTenRoundsOfKillAndScaleNeverOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newRingWorld(t, 700*time.Millisecond)
		next := 0
		add := func() *ringMember {
			rm := w.add(fmt.Sprintf("replica-%d", next))
			next++
			return rm
		}
		for range 3 {
			add()
		}
		w.settle()
		var takeovers []time.Duration
		for round := range 10 {
			extra := add()
			w.settle()
			w.stop(extra)
			w.settle()

			members := w.all()
			victim := members[round%len(members)]
			if round%2 == 0 {
				victim.leases.fail.Store(true) // crashed or partitioned
			} else {
				victim.leases.hang.Store(true) // paused
			}
			cutAt := time.Now()
			victim.dead.Store(true) // settle now expects the survivors
			takeovers = append(takeovers, w.settle().Sub(cutAt))
			w.stop(victim)
			add()
			w.settle()
		}
		slices.Sort(takeovers)
		t.Logf("10 rounds of 3 → 4 → 3 and a crash or pause: crash takeover p50 %v, max %v (LeaseDuration %v); %d reconciles journaled",
			takeovers[len(takeovers)/2], takeovers[len(takeovers)-1], ringLease, w.journal.count())
		assert.LessOrEqual(t, takeovers[len(takeovers)-1], ringLease+ringRetry*4+relist)
		w.check()
	})
}

// TestShardGuardKeyRefusedDuringACancelledReleaseRunsAfterIt: a member
// starts releasing a bucket the ring gave to a newcomer, but a reconcile
// in flight keeps the Lease; a key of the bucket that arrives meanwhile is
// refused and requeued, not dropped. The newcomer leaves, the ring gives
// the bucket back, the release is cancelled, and the requeued key runs at
// its next try, with no new event to bring it back.
// Diagram: step 9 (release cancelled). client-go: none; workqueue AddAfter.
func TestShardGuardKeyRefusedDuringACancelledReleaseRunsAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		end := make(chan struct{})
		defer close(end)
		a := newGuardWorld(t, srv, "replica-0", nil, end)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		aDone := a.run(t, ctx)
		time.Sleep(2 * ringRetry)
		require.Len(t, a.m.Held(), ringBuckets)
		b := bucketsOf(sharding.BucketOwners([]string{"replica-0", "replica-1"}, ringBuckets), "replica-1")[0]
		blocker := make(chan struct{})
		a.block = blocker
		inflight := make(chan struct{})
		go func() {
			defer close(inflight)
			a.try(t, b)
		}()
		synctest.Wait()
		require.Equal(t, 1, a.m.InFlight(b))
		second := newGuardWorld(t, srv, "replica-1", nil, end)
		secondCtx, stopSecond := context.WithCancel(ctx)
		secondDone := second.run(t, secondCtx)
		time.Sleep(2 * ringRetry)
		require.False(t, a.m.Admits(b), "releasing")
		a.block = nil

		ran, res := a.try(t, b)
		require.False(t, ran, "refused while releasing")
		assert.Equal(t, controller.Result{RequeueAfter: ringRetry}, res, "requeued, in case the release is cancelled")
		stopSecond()
		<-secondDone
		tries := 1
		for !ran && res.RequeueAfter > 0 && tries < 20 { // the queue's AddAfter
			time.Sleep(res.RequeueAfter)
			ran, res = a.try(t, b)
			tries++
		}

		t.Logf("replica-1 left; replica-0's release of bucket %d was cancelled; the key refused during it ran: %v", b, ran)
		assert.True(t, ran, "the key refused during the cancelled release ran")
		assert.True(t, a.m.Admits(b), "the bucket is admitted again")
		assert.Contains(t, a.m.Held(), b)
		close(blocker)
		<-inflight
		cancel()
		<-aDone
	})
}
