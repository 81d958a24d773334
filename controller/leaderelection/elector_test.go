package leaderelection_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
)

var leaseGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// Both resource handles are LeaseClients as they stand.
var (
	_ leaderelection.LeaseClient = (*fakeapi.ResourceClient)(nil)
	_ leaderelection.LeaseClient = (*client.ResourceClient)(nil)
)

// candidate is a Manager competing for the "demo" lease, with one
// controller over ConfigMaps that records what it reconciles.
type candidate struct {
	m   *manager.Manager
	rec *ctrltest.Recorder
}

func newCandidate(t *testing.T, srv *fakeapi.Server, identity string, leases leaderelection.LeaseClient) candidate {
	t.Helper()
	m := ctrltest.NewManager(t, srv, manager.Options{
		LeaderElection: &leaderelection.Options{Client: leases, Name: "demo", Identity: identity},
	})
	rec := ctrltest.NewRecorder()
	require.NoError(t, builder.New(m).For(ctrltest.CMGVR, ctrltest.ExampleCM()).WithOptions(controller.Options{Logger: ctrltest.Quiet}).Complete(rec))
	return candidate{m: m, rec: rec}
}

// isElected reports whether m has started its leader runnables.
func isElected(m *manager.Manager) bool {
	select {
	case <-m.Elected():
		return true
	default:
		return false
	}
}

// leaseSpec reads the lease's holder and transitions.
func leaseSpec(t *testing.T, srv *fakeapi.Server) (holder string, transitions int64) {
	t.Helper()
	obj, err := srv.Resource(leaseGVR).Namespace("kube-system").Get(context.Background(), "demo", metav1.GetOptions{})
	require.NoError(t, err)
	u := obj.(*unstructured.Unstructured)
	holder, _, _ = unstructured.NestedString(u.Object, "spec", "holderIdentity")
	transitions, _, _ = unstructured.NestedInt64(u.Object, "spec", "leaseTransitions")
	return holder, transitions
}

// TestOnlyLeaderReconcilesAndSuccessorTakesOverAfterStop: two Managers share
// a Lease. Only the first, which created the lease, runs its controller and
// reconciles the ConfigMap. When it stops it releases the lease after its
// controller stopped, and the second takes over at its next attempt — well
// within the lease duration — and reconciles the ConfigMap from its initial
// list.
// Diagram: steps 7-9 (who runs them). client-go: tools/leaderelection LeaderElector (ReleaseOnCancel), controller-runtime leader election runnables.
func TestOnlyLeaderReconcilesAndSuccessorTakesOverAfterStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		leases := srv.Resource(leaseGVR).Namespace("kube-system")
		a := newCandidate(t, srv, "a", leases)
		b := newCandidate(t, srv, "b", leases)
		stopA := ctrltest.RunManager(t, a.m)
		synctest.Wait()
		require.True(t, isElected(a.m))
		time.Sleep(time.Second)
		ctrltest.RunManager(t, b.m)
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "x"))
		time.Sleep(time.Minute) // many renewals and attempts
		synctest.Wait()

		assert.Equal(t, []string{"ns/x"}, a.rec.Requests())
		assert.Empty(t, b.rec.Requests(), "the follower reconciles nothing")
		t.Logf("two managers; a is elected; ns/x is created; a minute later a reconciled %v, b %v", a.rec.Requests(), b.rec.Requests())
		assert.False(t, isElected(b.m))
		holder, _ := leaseSpec(t, srv)
		assert.Equal(t, "a", holder)

		stoppedAt := time.Now()
		require.NoError(t, stopA())
		<-b.m.Elected()
		tookOver := time.Since(stoppedAt)
		synctest.Wait()

		assert.LessOrEqual(t, tookOver, leaderelection.DefaultRetryPeriod, "released: no need to wait for expiry")
		t.Logf("   a stops and releases the lease: b is elected %v later and reconciles %v", tookOver, b.rec.Requests())
		assert.Less(t, tookOver, leaderelection.DefaultLeaseDuration)
		assert.Equal(t, []string{"ns/x"}, b.rec.Requests())
		holder, transitions := leaseSpec(t, srv)
		assert.Equal(t, "b", holder)
		assert.Equal(t, int64(1), transitions, "created by a (0), taken by b (1)")
	})
}

// partitioned is a LeaseClient whose writes fail once cut is set, like a
// leader cut off from the API server.
type partitioned struct {
	leaderelection.LeaseClient
	cut atomic.Bool
}

func (p *partitioned) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if p.cut.Load() {
		return nil, errors.New("connection refused")
	}
	return p.LeaseClient.Update(ctx, obj, opts)
}

// TestLeaderThatCannotRenewStopsBeforeSuccessorStarts: the leader acquires
// at 0s and renews every 2s; at 3s its writes start failing. Its renewal
// round starting at 4s keeps failing until the 10s renew deadline: at 14s it
// stops its controller and Start returns "leader election lost". The other
// candidate last saw the lease change at 3s (its first attempt after the 2s
// renewal), so by its own clock the lease expires at 3s+15s, and it takes
// over at its next attempt, 19s: after the old leader stopped, never
// before.
// Diagram: steps 7-9 (who runs them). client-go: tools/leaderelection LeaderElector.renew, tryAcquireOrRenew (observedTime).
func TestLeaderThatCannotRenewStopsBeforeSuccessorStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		leases := srv.Resource(leaseGVR).Namespace("kube-system")
		aLeases := &partitioned{LeaseClient: leases}
		a := newCandidate(t, srv, "a", aLeases)
		b := newCandidate(t, srv, "b", leases)
		began := time.Now()
		aResult := make(chan error, 1)
		go func() { aResult <- a.m.Start(context.Background()) }()
		synctest.Wait()
		time.Sleep(time.Second)
		ctrltest.RunManager(t, b.m)
		time.Sleep(2 * time.Second)
		aLeases.cut.Store(true) // at 3s

		err := <-aResult
		lostAt := time.Since(began)
		<-b.m.Elected()
		electedAt := time.Since(began)

		assert.EqualError(t, err, "leader election lost")
		t.Logf("a is elected, b waits; at 3s a can no longer reach the lease: a stops at %v (%v), b is elected at %v", lostAt, err, electedAt)
		assert.Equal(t, 14*time.Second, lostAt)
		assert.Equal(t, 19*time.Second, electedAt)
		holder, transitions := leaseSpec(t, srv)
		assert.Equal(t, "b", holder)
		assert.Equal(t, int64(1), transitions)
	})
}

// lostReply is a LeaseClient whose next Update, once armed, reaches the
// server but whose answer is lost on the way back, as when the caller's
// context is cancelled while the request is in flight.
type lostReply struct {
	leaderelection.LeaseClient
	armed atomic.Bool
}

func (l *lostReply) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	out, err := l.LeaseClient.Update(ctx, obj, opts)
	if err == nil && l.armed.CompareAndSwap(true, false) {
		return nil, context.Canceled
	}
	return out, err
}

// TestReleaseAfterRenewalWithLostAnswerStillReleases: the leader's last
// renewal reached the server but its answer was lost, so the lease it
// remembers is one version behind and its release is refused with a
// Conflict. It reads the lease again, finds itself still the holder, and
// releases that: the successor takes over at its next attempt instead of
// waiting out the lease duration. (Seen against a real kube-apiserver, where
// stopping the leader cancels a renewal in flight.)
// Diagram: steps 7-9 (who runs them). client-go: tools/leaderelection LeaderElector.release (which gives up on any error).
func TestReleaseAfterRenewalWithLostAnswerStillReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		leases := srv.Resource(leaseGVR).Namespace("kube-system")
		aLeases := &lostReply{LeaseClient: leases}
		a := newCandidate(t, srv, "a", aLeases)
		b := newCandidate(t, srv, "b", leases)
		stopA := ctrltest.RunManager(t, a.m)
		synctest.Wait()
		require.True(t, isElected(a.m))
		ctrltest.RunManager(t, b.m)
		aLeases.armed.Store(true)
		time.Sleep(leaderelection.DefaultRetryPeriod) // a renews; the server applies it; a never hears back
		synctest.Wait()
		require.False(t, aLeases.armed.Load(), "the renewal happened")

		stoppedAt := time.Now()
		require.NoError(t, stopA())
		<-b.m.Elected()
		tookOver := time.Since(stoppedAt)

		assert.LessOrEqual(t, tookOver, leaderelection.DefaultRetryPeriod, "released: no need to wait for expiry")
		holder, transitions := leaseSpec(t, srv)
		assert.Equal(t, "b", holder)
		assert.Equal(t, int64(1), transitions)
	})
}

// TestLeaderElectionOptionsAreValidated: durations must nest (lease >
// renew deadline > retry), and the lease needs a client and a name.
// Diagram: none. client-go: tools/leaderelection.NewLeaderElector validation.
func TestLeaderElectionOptionsAreValidated(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	leases := srv.Resource(leaseGVR).Namespace("kube-system")
	cases := []struct {
		le   leaderelection.Options
		want string
	}{
		{leaderelection.Options{Name: "x"}, "Client is nil"},
		{leaderelection.Options{Client: leases}, "Name (the Lease's name) is empty"},
		{leaderelection.Options{Client: leases, Name: "x", LeaseDuration: 10 * time.Second}, "must be greater than RenewDeadline"},
		{leaderelection.Options{Client: leases, Name: "x", RetryPeriod: 10 * time.Second}, "must be greater than RetryPeriod"},
		{leaderelection.Options{Client: leases, Name: "x", LeaseDuration: 1500 * time.Millisecond}, "not a whole number of seconds"},
	}
	for _, tc := range cases {
		_, err := manager.New(manager.Options{NewListerWatcher: ctrltest.ListerWatchers(srv), LeaderElection: &tc.le})
		assert.ErrorContains(t, err, tc.want)
	}
}

// TestFollowerRunsOnlyRunnablesThatNeedNoLeadership: while another
// candidate holds the lease, a Manager runs its cache and its runnables
// that need no leadership, but not its controller.
// Diagram: none (lifecycle). client-go: controller-runtime LeaderElectionRunnable.
func TestFollowerRunsOnlyRunnablesThatNeedNoLeadership(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "x"))
		leases := srv.Resource(leaseGVR).Namespace("kube-system")
		leader := newCandidate(t, srv, "leader", leases)
		ctrltest.RunManager(t, leader.m)
		synctest.Wait()
		follower := newCandidate(t, srv, "follower", leases)
		var others atomic.Int32
		require.NoError(t, follower.m.Add(ctrltest.NoLeader{RunnableFunc: func(ctx context.Context) error {
			others.Add(1)
			<-ctx.Done()
			return nil
		}}))

		ctrltest.RunManager(t, follower.m)
		time.Sleep(time.Minute)
		synctest.Wait()

		assert.Equal(t, int32(1), others.Load())
		t.Logf("a follower for a minute: runnables that need no leadership started %d; its controller reconciled %v; the leader's %v", others.Load(), follower.rec.Requests(), leader.rec.Requests())
		assert.False(t, isElected(follower.m))
		assert.Empty(t, follower.rec.Requests())
		assert.Equal(t, []string{"ns/x"}, leader.rec.Requests())
	})
}
