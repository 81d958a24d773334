package walkthrough

import (
	"context"
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
	"github.com/informerlab/informerlab/controller/predicate"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionStatusUpdateRetriggersReconcile runs a controller whose
// Reconcile records "reconciled N times" in the Foo's status, as many real
// controllers record an observed time or count. Its own status write is an
// update event for the Foo, which enqueues the Foo, whose Reconcile writes
// status again: without a predicate it reconciles until the test's cap of
// 20 writes stops it, in no fake time at all. With
// GenerationChangedPredicate the status write, which does not change
// metadata.generation, is dropped before it reaches the queue: one create,
// one Reconcile; a spec change bumps the generation and passes.
//
// Diagram: steps 6-9 (and back to 1). client-go: controller-runtime predicate.GenerationChangedPredicate.
func TestConfusionStatusUpdateRetriggersReconcile(t *testing.T) {
	t.Run("no predicate", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			foos, count := statusWritingController(t)

			create(t, foos, newFoo("ns", "f", 1))
			time.Sleep(time.Minute)
			synctest.Wait()

			t.Log("1. A Reconcile that counts its passes in status, with no predicate: create one Foo")
			t.Logf("   Reconcile ran %d times: once for the create, once for each of its own status writes (the test caps them at 20)", count())
			assert.Equal(t, 21, count(), "one Reconcile for the create, one for each of its own 20 status writes")
		})
	})

	t.Run("GenerationChangedPredicate", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			foos, count := statusWritingController(t, predicate.GenerationChangedPredicate{})

			created := create(t, foos, newFoo("ns", "f", 1))
			time.Sleep(time.Minute)
			synctest.Wait()

			t.Log("2. The same controller with GenerationChangedPredicate: create one Foo")
			t.Logf("   Reconcile ran %d time: its status write did not change metadata.generation, so it was dropped", count())
			assert.Equal(t, 1, count(), "the status write did not come back")
			got, err := foos.Get(context.Background(), "f", metav1.GetOptions{})
			require.NoError(t, err)
			foo := got.(*unstructured.Unstructured)
			assert.Equal(t, created.GetGeneration(), foo.GetGeneration(), "status writes leave the generation alone")

			require.NoError(t, unstructured.SetNestedField(foo.Object, int64(3), "spec", "replicas"))
			_, err = foos.Update(context.Background(), foo, metav1.UpdateOptions{})
			require.NoError(t, err)
			time.Sleep(time.Minute)
			synctest.Wait()

			t.Logf("   a spec change bumps the generation and passes: Reconcile has run %d times", count())
			assert.Equal(t, 2, count(), "a spec change bumps the generation and passes")
		})
	})
}

// statusWritingController runs, until the end of the test, an informer on
// Foos and a controller whose Reconcile increments status.reconciles (up to
// 20) through the status subresource. It returns the Foos client and a
// function counting the Reconciles so far.
func statusWritingController(t *testing.T, predicates ...controller.Predicate) (*fakeapi.ResourceClient, func() int) {
	t.Helper()
	srv := newServer(t, fakeapi.Options{})
	foos := srv.Resource(foosGVR).Namespace("ns")
	inf := informer.NewSharedIndexInformer(foos, exampleFoo(), 0, nil, informer.WithLogger(quiet))
	lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), foosGVR.GroupResource())
	var mu sync.Mutex
	reconciles := 0
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		mu.Lock()
		reconciles++
		mu.Unlock()
		cached, err := lister.Namespace(req.Namespace).Get(req.Name)
		if apierrors.IsNotFound(err) {
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		foo := cached.DeepCopy()
		n, _, _ := unstructured.NestedInt64(foo.Object, "status", "reconciles")
		if n >= 20 {
			return controller.Result{}, nil
		}
		if err := unstructured.SetNestedField(foo.Object, n+1, "status", "reconciles"); err != nil {
			return controller.Result{}, err
		}
		_, err = foos.UpdateStatus(ctx, foo, metav1.UpdateOptions{})
		return controller.Result{}, err
	})
	c, err := controller.New("foo", r, controller.Options{Logger: quiet})
	require.NoError(t, err)
	require.NoError(t, c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{}, predicates...)))
	runInformer(t, inf)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	synctest.Wait()
	return foos, func() int {
		mu.Lock()
		defer mu.Unlock()
		return reconciles
	}
}
