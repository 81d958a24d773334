package controller_test

import (
	"context"
	"errors"
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
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestFinalizerHelpersEditMetadata: Add adds once, Remove removes every
// copy, each reports whether it changed anything.
// Diagram: none. client-go: controller-runtime controllerutil.AddFinalizer/RemoveFinalizer/ContainsFinalizer.
func TestFinalizerHelpersEditMetadata(t *testing.T) {
	obj := ctrltest.NewCM("ns", "a")
	obj.SetFinalizers([]string{"other"})

	assert.True(t, controller.AddFinalizer(obj, "mine"))
	assert.False(t, controller.AddFinalizer(obj, "mine"))
	assert.Equal(t, []string{"other", "mine"}, obj.GetFinalizers())
	assert.True(t, controller.ContainsFinalizer(obj, "mine"))

	obj.SetFinalizers([]string{"mine", "other", "mine"})
	assert.True(t, controller.RemoveFinalizer(obj, "mine"))
	assert.False(t, controller.RemoveFinalizer(obj, "mine"))
	assert.Equal(t, []string{"other"}, obj.GetFinalizers())
	assert.False(t, controller.ContainsFinalizer(obj, "mine"))
}

// TestFinalizerCleansUpBeforeObjectIsDeleted runs a controller over Foos
// that "creates" an external resource per Foo only after Finalize has
// written its finalizer. Deleting the Foo only marks it; the controller's
// first Cleanup fails, the finalizer stays and the Foo survives; the retry
// 5ms later cleans up and removes the finalizer, and only then does the
// API server delete the Foo. Nothing external is left behind.
// Diagram: steps 7-9. client-go: none (kubebuilder's finalizer pattern; API server deletionTimestamp/finalizers).
func TestFinalizerCleansUpBeforeObjectIsDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const name = "samplecontroller.k8s.io/cleanup"
		srv := ctrltest.NewServer(t)
		require.NoError(t, srv.Register(fakeapi.ResourceInfo{GVR: ctrltest.FoosGVR, Kind: "Foo", Namespaced: true, HasStatus: true}))
		foos := srv.Resource(ctrltest.FoosGVR).Namespace("ns")
		m := ctrltest.NewManager(t, srv, manager.Options{})
		inf, err := m.GetInformer(ctrltest.FoosGVR, ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo"))
		require.NoError(t, err)
		lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), ctrltest.FoosGVR.GroupResource())

		var mu sync.Mutex
		external := map[string]bool{} // what the controller created outside the cluster
		cleanups, failFirst := 0, true
		fin := controller.Finalizer{
			Name: name,
			Cleanup: func(_ context.Context, obj controller.Object) error {
				mu.Lock()
				defer mu.Unlock()
				cleanups++
				if failFirst {
					failFirst = false
					return errors.New("external system unavailable")
				}
				delete(external, obj.GetName())
				return nil
			},
			Update: func(ctx context.Context, obj controller.Object) error {
				_, err := foos.Update(ctx, obj, metav1.UpdateOptions{})
				return err
			},
		}
		r := controller.ReconcilerFunc(func(ctx context.Context, rq controller.Request) (controller.Result, error) {
			cached, err := lister.Namespace(rq.Namespace).Get(rq.Name)
			if apierrors.IsNotFound(err) {
				return controller.Result{}, nil
			}
			if err != nil {
				return controller.Result{}, err
			}
			obj := cached.DeepCopy()
			if deleting, err := fin.Finalize(ctx, obj); deleting || err != nil {
				return controller.Result{}, err
			}
			mu.Lock()
			defer mu.Unlock()
			external[obj.GetName()] = controller.ContainsFinalizer(obj, name)
			return controller.Result{}, nil
		})
		require.NoError(t, builder.New(m).For(ctrltest.FoosGVR, ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo")).
			WithOptions(controller.Options{Logger: ctrltest.Quiet}).Complete(r))
		ctrltest.RunManager(t, m)
		foo := ctrltest.Example("samplecontroller.k8s.io/v1alpha1", "Foo")
		foo.SetNamespace("ns")
		foo.SetName("f1")
		ctrltest.CreateAs(t, srv, ctrltest.FoosGVR, foo)
		time.Sleep(time.Second)
		synctest.Wait()

		stored, err := foos.Get(context.Background(), "f1", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, []string{name}, stored.(controller.Object).GetFinalizers(), "finalizer written")
		mu.Lock()
		assert.Equal(t, map[string]bool{"f1": true}, external, "created only once the finalizer was on the object")
		t.Logf("Foo f1 created: the stored object has finalizers %v; the external resource exists: %v", stored.(controller.Object).GetFinalizers(), external["f1"])
		mu.Unlock()

		require.NoError(t, foos.Delete(context.Background(), "f1", metav1.DeleteOptions{}))
		synctest.Wait()
		stored, err = foos.Get(context.Background(), "f1", metav1.GetOptions{})
		require.NoError(t, err, "the failed cleanup keeps the Foo")
		assert.NotNil(t, stored.(controller.Object).GetDeletionTimestamp())
		t.Logf("   Delete: the first cleanup fails, so f1 stays, with deletionTimestamp %v", stored.(controller.Object).GetDeletionTimestamp())
		time.Sleep(time.Second)
		synctest.Wait()

		_, err = foos.Get(context.Background(), "f1", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "deleted once the finalizer was removed: %v", err)
		t.Logf("   a second later the retried cleanup succeeds, the finalizer is removed, and the server says: %v", err)
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, external)
		assert.Equal(t, 2, cleanups, "failed once, then succeeded")
	})
}

// TestFinalizerRejectsIncompleteSetup: a Finalizer without its parts is an
// error, not a panic.
// Diagram: none. client-go: none.
func TestFinalizerRejectsIncompleteSetup(t *testing.T) {
	obj := ctrltest.NewCM("ns", "a")
	_, err := controller.Finalizer{}.Finalize(context.Background(), obj)
	assert.ErrorContains(t, err, "controller: finalizer: Name is empty")
	_, err = controller.Finalizer{Name: "x/y"}.Finalize(context.Background(), obj)
	assert.ErrorContains(t, err, "Cleanup and Update are required")
	assert.Empty(t, obj.GetFinalizers())
}
