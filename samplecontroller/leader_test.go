package samplecontroller_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// leaderReplica is one leader-elected sample controller, its Foo
// reconciles counted.
type leaderReplica struct {
	sc         *sc.SampleController
	reconciles *recorder
	stop       context.CancelFunc
	done       chan error
}

func startLeaderReplica(t *testing.T, srv *fakeapi.Server, identity string, warmup bool) *leaderReplica {
	t.Helper()
	r := &leaderReplica{reconciles: &recorder{}, done: make(chan error, 1)}
	var err error
	r.sc, err = sc.New(func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	}, sc.Options{
		Namespace: ns, DeploymentSimulator: true, Logger: quiet, Observer: r.reconciles.observe,
		Leader: &sc.LeaderOptions{Identity: identity, LeaseDuration: shardLeaseDuration, RenewDeadline: shardRenewDeadline, RetryPeriod: shardRetryPeriod, Warmup: warmup},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() { r.done <- r.sc.Run(ctx) }()
	return r
}

// TestLeaderElectedReplicasOneReconcilesAndTheStandbyTakesOver: two
// replicas with Options.Leader share one Lease. The first to hold it
// reconciles every Foo; the standby caches them (its cache runs, leader or
// not) but reconciles none, and with Warmup its Foo queue already holds
// every Foo's key while it waits. When the leader stops, it releases the
// Lease and the standby takes it and reconciles: a scale made while the
// leader was gone is applied by the new leader.
// Diagram: steps 1-5 on every replica, 6-9 on the leader. client-go: none; controller-runtime LeaderElection and EnableWarmup.
func TestLeaderElectedReplicasOneReconcilesAndTheStandbyTakesOver(t *testing.T) {
	for _, warmup := range []bool{false, true} {
		t.Run(fmt.Sprintf("warmup=%v", warmup), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
				defer srv.Close()
				require.NoError(t, sc.Register(srv))
				w := &world{srv: srv, foos: srv.Resource(sc.FoosGVR).Namespace(ns), deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns)}
				const foos = 5
				for i := range foos {
					w.createFoo(t, newFoo(fmt.Sprintf("foo-%d", i), fmt.Sprintf("web-%d", i), int32p(1)))
				}

				a := startLeaderReplica(t, srv, "replica-a", warmup)
				settle()
				b := startLeaderReplica(t, srv, "replica-b", warmup)
				settle()
				assert.GreaterOrEqual(t, a.reconciles.reconciles(sc.FooControllerName), foos, "the leader reconciled every Foo")
				assert.Zero(t, b.reconciles.reconciles(sc.FooControllerName), "the standby reconciles nothing")
				cached, err := b.sc.Manager().GetInformer(sc.FoosGVR, &sc.Foo{})
				require.NoError(t, err)
				assert.Len(t, cached.GetStore().List(), foos, "the standby's cache holds every Foo")
				queued := b.sc.FooController().QueueLen()
				if warmup {
					assert.Equal(t, foos, queued, "warm: the standby's queue holds every Foo's key")
				} else {
					assert.Zero(t, queued, "cold: the standby's sources have not started")
				}
				for i := range foos {
					assert.Equal(t, int32(1), *w.getDeployment(t, fmt.Sprintf("web-%d", i)).Spec.Replicas)
				}

				a.stop()
				require.NoError(t, <-a.done)
				took := time.Now()
				for b.reconciles.reconciles(sc.FooControllerName) < foos {
					time.Sleep(shardRetryPeriod / 5)
				}
				t.Logf("warmup=%v: the standby had %d keys queued; after the leader's release it reconciled every Foo within %v", warmup, queued, time.Since(took))
				assert.Less(t, time.Since(took), 2*shardRetryPeriod, "a released Lease is taken at the standby's next try")

				foo := w.getFoo(t, "foo-0")
				foo.Spec.Replicas = int32p(3)
				_, err = w.foos.Update(context.Background(), foo, metav1.UpdateOptions{})
				require.NoError(t, err)
				settle()
				assert.Equal(t, int32(3), *w.getDeployment(t, "web-0").Spec.Replicas, "the new leader scales")
				b.stop()
				require.NoError(t, <-b.done)
			})
		})
	}
}

// TestLeaderAndShardCannotBothBeSet: a replica is either one of a ring or
// one of a leader election, and New says so.
// Diagram: none. client-go: none.
func TestLeaderAndShardCannotBothBeSet(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	defer srv.Close()
	_, err := sc.New(func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return srv.Resource(gvr).Namespace(namespace)
	}, sc.Options{Leader: &sc.LeaderOptions{}, Shard: &sc.ShardOptions{Ring: "foos"}})
	assert.ErrorContains(t, err, "Leader and Shard cannot both be set")
}
