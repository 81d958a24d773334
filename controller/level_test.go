package controller_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/predicate"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestManyEventsForOneObjectBecomeOneReconcileOfLatestState: while the only
// worker is busy for a second, a ConfigMap is updated ten times. The queue
// holds its key, not the ten events: afterwards it is reconciled once, and
// the Reconciler reads the latest value from the cache. That is level
// triggering: the Reconciler acts on what is, not on what happened.
// Diagram: steps 7, 8, 9. client-go: workqueue dirty set (Add of a queued key is a no-op); sample-controller syncHandler.
func TestManyEventsForOneObjectBecomeOneReconcileOfLatestState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		cms := srv.Resource(ctrltest.CMGVR).Namespace("ns")
		busy := ctrltest.Create(t, srv, ctrltest.NewCM("ns", "busy"))
		x := ctrltest.Create(t, srv, ctrltest.NewCM("ns", "x"))
		inf := ctrltest.RunInformer(t, srv)
		lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), ctrltest.CMGVR.GroupResource())
		var mu sync.Mutex
		var seen []string
		r := controller.ReconcilerFunc(func(_ context.Context, rq controller.Request) (controller.Result, error) {
			if rq.Name == "busy" {
				time.Sleep(time.Second)
				return controller.Result{}, nil
			}
			cm, err := lister.Namespace(rq.Namespace).Get(rq.Name)
			if err != nil {
				return controller.Result{}, err
			}
			value, _, _ := unstructured.NestedString(cm.Object, "data", "value")
			mu.Lock()
			seen = append(seen, rq.String()+" value="+value)
			mu.Unlock()
			return controller.Result{}, nil
		})
		c, err := controller.New("test", r, controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		require.NoError(t, c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{})))
		ctrltest.Start(t, c)
		synctest.Wait()
		mu.Lock()
		seen = nil // the initial list
		mu.Unlock()
		busy.SetLabels(map[string]string{"poke": "yes"})
		_, err = cms.Update(context.Background(), busy, metav1.UpdateOptions{})
		require.NoError(t, err)
		synctest.Wait() // the worker is now inside the busy Reconcile

		for i := 1; i <= 10; i++ {
			x.Object["data"] = map[string]any{"value": strconv.Itoa(i)}
			updated, err := cms.Update(context.Background(), x, metav1.UpdateOptions{})
			require.NoError(t, err)
			x = updated.(*unstructured.Unstructured)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()

		t.Log("one worker is busy for 1s; meanwhile ns/x is updated ten times")
		t.Logf("   when the worker is free, ns/x is reconciled %d time(s): %v", len(seen), seen)
		assert.Equal(t, []string{"ns/x value=10"}, seen)
	})
}

// statusLoop runs a controller over Foos whose Reconciler writes
// status.reconciles = previous + 1 through the status subresource, like a
// controller recording "last reconciled" information, with the given
// predicates on For. It stops writing at 100 so the test ends either way, and
// returns how many times it reconciled the one Foo.
func statusLoop(t *testing.T, predicates ...controller.Predicate) int {
	srv := ctrltest.NewServer(t)
	require.NoError(t, srv.Register(fakeapi.ResourceInfo{GVR: ctrltest.FoosGVR, Kind: "Foo", Namespaced: true, HasStatus: true}))
	foos := srv.Resource(ctrltest.FoosGVR).Namespace("ns")
	m := ctrltest.NewManager(t, srv, manager.Options{})
	exampleFoo := ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo")
	inf, err := m.GetInformer(ctrltest.FoosGVR, exampleFoo)
	require.NoError(t, err)
	lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), ctrltest.FoosGVR.GroupResource())
	var mu sync.Mutex
	reconciles := 0
	r := controller.ReconcilerFunc(func(ctx context.Context, rq controller.Request) (controller.Result, error) {
		mu.Lock()
		reconciles++
		mu.Unlock()
		cached, err := lister.Namespace(rq.Namespace).Get(rq.Name)
		if apierrors.IsNotFound(err) {
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		foo := cached.DeepCopy()
		n, _, _ := unstructured.NestedInt64(foo.Object, "status", "reconciles")
		if n >= 100 {
			return controller.Result{}, nil
		}
		_ = unstructured.SetNestedField(foo.Object, n+1, "status", "reconciles")
		_, err = foos.UpdateStatus(ctx, foo, metav1.UpdateOptions{})
		return controller.Result{}, err
	})
	require.NoError(t, builder.New(m).For(ctrltest.FoosGVR, exampleFoo, predicates...).
		WithOptions(controller.Options{Logger: ctrltest.Quiet}).Complete(r))
	ctrltest.RunManager(t, m)
	foo := ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo")
	foo.SetNamespace("ns")
	foo.SetName("f1")
	foo.Object["spec"] = map[string]any{"replicas": int64(1)}
	ctrltest.CreateAs(t, srv, ctrltest.FoosGVR, foo)
	time.Sleep(time.Minute)
	synctest.Wait()
	mu.Lock()
	defer mu.Unlock()
	return reconciles
}

// TestStatusWritesLoopWithoutGenerationChangedPredicate: a Reconciler that
// writes status on every pass wakes itself up: its own write is an update
// event, which enqueues the Foo, which writes status again... It reconciles
// the one Foo 101 times (until the test's cap), in no fake time at all: a
// hot loop.
// Diagram: steps 6-9 (a cycle through them). client-go: controller-runtime predicate.GenerationChangedPredicate (the problem it solves).
func TestStatusWritesLoopWithoutGenerationChangedPredicate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := statusLoop(t)
		t.Logf("a Reconcile that writes status every time, no predicate: %d Reconciles for one create (capped at 100 writes)", n)
		assert.Equal(t, 101, n)
	})
}

// TestGenerationChangedPredicateStopsStatusHotLoop: with
// GenerationChangedPredicate on For, the status write does not change
// metadata.generation (the API server bumps it for spec changes only), so
// its update event is dropped: one create, one Reconcile.
// Diagram: steps 6-7 boundary. client-go: controller-runtime predicate.GenerationChangedPredicate.
func TestGenerationChangedPredicateStopsStatusHotLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := statusLoop(t, predicate.GenerationChangedPredicate{})
		t.Logf("the same with GenerationChangedPredicate: %d Reconcile; the status write did not change the generation", n)
		assert.Equal(t, 1, n)
	})
}
