package walkthrough

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionDeletionWithFinalizers deletes a Foo that carries a
// finalizer. The delete succeeds, yet the object is still there: the server
// only set its deletionTimestamp, and the informer reports an *update*, not
// a delete. The object stays, for as long as it takes, until a controller
// removes the finalizer with an ordinary update; that update is what deletes
// it, and only then does the handler get OnDelete.
//
// Diagram: steps 1, 6. client-go: none (API server semantics); controller-runtime controllerutil.RemoveFinalizer.
func TestConfusionDeletionWithFinalizers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const finalizer = "samplecontroller.k8s.io/cleanup"
		srv := newServer(t, fakeapi.Options{})
		foos := srv.Resource(foosGVR).Namespace("ns")
		foo := newFoo("ns", "f", 1)
		require.True(t, controller.AddFinalizer(foo, finalizer))
		created := create(t, foos, foo)
		inf := informer.NewSharedIndexInformer(foos, exampleFoo(), 0, nil, informer.WithLogger(quiet))
		rec := &recorder{}
		startInformer(t, inf, rec)
		t.Logf("1. A Foo with the finalizer %s is cached: %s", finalizer, strings.Join(rec.takeLines(), ", "))

		require.NoError(t, foos.Delete(context.Background(), "f", metav1.DeleteOptions{}))
		synctest.Wait()

		got, err := foos.Get(context.Background(), "f", metav1.GetOptions{})
		require.NoError(t, err, "the object is still there")
		marked := got.(*unstructured.Unstructured)
		lines := rec.takeLines()
		t.Logf("2. Delete succeeded, yet the server still has ns/f, with deletionTimestamp %v", marked.GetDeletionTimestamp())
		t.Logf("   the handler saw: %s", strings.Join(lines, ", "))
		assert.NotNil(t, marked.GetDeletionTimestamp(), "only marked for deletion")
		assert.Equal(t, []string{"update ns/f@" + rvOf(created) + "->" + rvOf(marked)}, lines,
			"the handler sees an update, not a delete")
		cached := mustGet(t, inf, "ns/f").(*unstructured.Unstructured)
		assert.NotNil(t, cached.GetDeletionTimestamp(), "a Reconcile reading the cache can tell it is being deleted")

		// A controller's cleanup is done: it removes its finalizer.
		done := cached.DeepCopy()
		require.True(t, controller.RemoveFinalizer(done, finalizer))
		_, err = foos.Update(context.Background(), done, metav1.UpdateOptions{})
		require.NoError(t, err)
		synctest.Wait()

		_, err = foos.Get(context.Background(), "f", metav1.GetOptions{})
		lines = rec.takeLines()
		t.Log("3. The controller removes its finalizer with an ordinary update")
		t.Logf("   the server now answers: %v", err)
		t.Logf("   the handler saw: %s", strings.Join(lines, ", "))
		assert.True(t, apierrors.IsNotFound(err), "removing the last finalizer deleted it")
		require.Len(t, lines, 1)
		assert.Regexp(t, `^delete ns/f@\d+$`, lines[0], "now the handler gets OnDelete")
		assert.Empty(t, inf.GetStore().List())
	})
}
