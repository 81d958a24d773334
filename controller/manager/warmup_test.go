package manager_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/leaderelection"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

var leasesGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// countingLW counts the lists a Manager's informers make.
type countingLW struct {
	reflector.ListerWatcher
	lists *atomic.Int32
}

func (c countingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	c.lists.Add(1)
	return c.ListerWatcher.List(ctx, opts)
}

func (c countingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return c.ListerWatcher.Watch(ctx, opts)
}

// cuttable is a Lease client that fails every call once cut, as a crashed
// leader's would: it renews nothing and releases nothing.
type cuttable struct {
	leaderelection.LeaseClient
	cut atomic.Bool
}

var errCrashed = errors.New("test: crashed")

func (c *cuttable) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	if c.cut.Load() {
		return nil, errCrashed
	}
	return c.LeaseClient.Get(ctx, name, opts)
}

func (c *cuttable) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	if c.cut.Load() {
		return nil, errCrashed
	}
	return c.LeaseClient.Create(ctx, obj, opts)
}

func (c *cuttable) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if c.cut.Load() {
		return nil, errCrashed
	}
	return c.LeaseClient.Update(ctx, obj, opts)
}

// standby is a leader-elected Manager with one ConfigMap controller.
type standby struct {
	m      *manager.Manager
	c      *controller.Controller
	inf    informer.SharedIndexInformer
	rec    *ctrltest.Recorder
	leases *cuttable
	lists  atomic.Int32
	// onReconcile, when set before the Manager starts, is called at each
	// Reconcile.
	onReconcile func()
}

func newStandby(t testing.TB, srv *fakeapi.Server, identity string, warmup bool) *standby {
	t.Helper()
	s := &standby{rec: ctrltest.NewRecorder(), leases: &cuttable{LeaseClient: srv.Resource(leasesGVR).Namespace("kube-system")}}
	var err error
	s.m, err = manager.New(manager.Options{
		NewListerWatcher: func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return countingLW{ListerWatcher: srv.Resource(gvr).Namespace(ns), lists: &s.lists}
		},
		LeaderElection: &leaderelection.Options{Client: s.leases, Name: "demo", Identity: identity,
			LeaseDuration: 4 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
		Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	s.c, err = builder.New(s.m).Named("cms-"+identity).For(ctrltest.CMGVR, ctrltest.ExampleCM()).
		WithOptions(controller.Options{EnableWarmup: warmup, Logger: ctrltest.Quiet}).
		Build(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			if s.onReconcile != nil {
				s.onReconcile()
			}
			return s.rec.Reconcile(ctx, req)
		}))
	require.NoError(t, err)
	s.inf, err = s.m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
	require.NoError(t, err)
	return s
}

// TestStandbyCacheIsSyncedBeforeItLeadsAndWarmupFillsItsQueue: a leader
// and a standby share a Lease over 40 ConfigMaps. Either way the standby's
// cache has listed and synced before it leads, and it reconciles nothing
// while it waits. With EnableWarmup its controller's sources have run too:
// its queue holds the 40 keys, and no worker has taken one. The leader
// crashes (no renewal, no release); a LeaseDuration later the standby
// leads and reconciles the 40, without listing again.
// Diagram: steps 1-5 on a standby, 7 before leading, 8-9 after. client-go: controller-runtime Options.EnableWarmup (warm replicas); the Manager starts its caches before the election.
func TestStandbyCacheIsSyncedBeforeItLeadsAndWarmupFillsItsQueue(t *testing.T) {
	for _, warmup := range []bool{false, true} {
		t.Run(fmt.Sprintf("EnableWarmup=%v", warmup), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := ctrltest.NewServer(t)
				for i := range 40 {
					ctrltest.Create(t, srv, ctrltest.NewCM("ns", fmt.Sprintf("cm-%02d", i)))
				}
				leader := newStandby(t, srv, "a", warmup)
				ctrltest.RunManager(t, leader.m)
				synctest.Wait()
				require.True(t, isElected(leader.m))
				b := newStandby(t, srv, "b", warmup)
				ctrltest.RunManager(t, b.m)
				time.Sleep(3 * time.Second)
				synctest.Wait()

				assert.False(t, isElected(b.m))
				assert.True(t, b.inf.HasSynced(), "the standby's cache synced before it leads")
				assert.Len(t, b.inf.GetIndexer().ListKeys(), 40)
				assert.Empty(t, b.rec.Requests(), "a standby reconciles nothing")
				queued := b.c.QueueLen()
				if warmup {
					assert.Equal(t, 40, queued, "warm: every key waits on the standby's queue")
				} else {
					assert.Zero(t, queued, "cold: the sources start when it leads")
				}
				listsBefore := b.lists.Load()

				leader.leases.cut.Store(true)
				crashed := time.Now()
				<-b.m.Elected()
				elected := time.Since(crashed)
				synctest.Wait()

				assert.Len(t, b.rec.Requests(), 40, "the new leader reconciles every key")
				assert.Equal(t, listsBefore, b.lists.Load(), "without listing again")
				assert.GreaterOrEqual(t, elected, 4*time.Second-500*time.Millisecond, "after the crashed leader's Lease expired")
				t.Logf("standby: cache synced with %d objects, %d keys queued before leading; leads %v after the crash, reconciles %d, lists again %d times",
					len(b.inf.GetIndexer().ListKeys()), queued, elected, len(b.rec.Requests()), b.lists.Load()-listsBefore)
			})
		})
	}
}

func isElected(m *manager.Manager) bool {
	select {
	case <-m.Elected():
		return true
	default:
		return false
	}
}

// BenchmarkStandbyFailover measures, over -failover.objects ConfigMaps on
// an in-process fakeapi, how long a standby that has just won the Lease
// takes to its first Reconcile and to the last of the initial keys, cold
// (its sources start when it leads) and warm (EnableWarmup). Both caches
// are synced before the election; what differs is the replay of every
// cached object into the controller's queue.
//
//	go test ./controller/manager -run '^$' -bench StandbyFailover -benchtime 1x -failover.objects 20000
func BenchmarkStandbyFailover(b *testing.B) {
	for _, warmup := range []bool{false, true} {
		b.Run(fmt.Sprintf("EnableWarmup=%v", warmup), func(b *testing.B) {
			for range b.N {
				first, all := failoverOnce(b, *failoverObjects, warmup)
				b.ReportMetric(float64(first.Microseconds())/1000, "ms-to-first-reconcile")
				b.ReportMetric(float64(all.Microseconds())/1000, "ms-to-all-reconciled")
			}
		})
	}
}

var failoverObjects = flag.Int("failover.objects", 2000, "ConfigMaps for BenchmarkStandbyFailover")

// failoverOnce runs a leader and a standby over n ConfigMaps, crashes the
// leader, and returns how long after the standby was elected it started
// its first Reconcile, and its n-th.
func failoverOnce(b *testing.B, n int, warmup bool) (first, all time.Duration) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := srv.Resource(ctrltest.CMGVR).Namespace("ns")
	for i := range n {
		_, err := cms.Create(context.Background(), ctrltest.NewCM("ns", fmt.Sprintf("cm-%05d", i)), metav1.CreateOptions{})
		require.NoError(b, err)
	}
	leader := newStandby(b, srv, "a", warmup)
	stopLeader := ctrltest.RunManager(b, leader.m)
	<-leader.m.Elected()
	s := newStandby(b, srv, "b", warmup)
	var reconciled atomic.Int64
	firstAt, allAt := make(chan time.Time, 1), make(chan time.Time, 1)
	s.onReconcile = func() {
		switch reconciled.Add(1) {
		case 1:
			firstAt <- time.Now()
		case int64(n):
			allAt <- time.Now()
		}
	}
	ctrltest.RunManager(b, s.m)
	for !s.inf.HasSynced() || (warmup && s.c.QueueLen() < n) {
		time.Sleep(10 * time.Millisecond)
	}
	leader.leases.cut.Store(true)
	<-s.m.Elected()
	elected := time.Now()
	first, all = (<-firstAt).Sub(elected), (<-allAt).Sub(elected)
	_ = stopLeader()
	return first, all
}
