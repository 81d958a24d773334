package informer_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

var leaseGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

func exampleLease() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("coordination.k8s.io/v1")
	u.SetKind("Lease")
	return u
}

// TestFactorySharesOneInformerPerResource asks a namespaced factory twice for
// the same resource and once for another: the same informer comes back, a
// different example type is refused, Start and WaitForCacheSync cover both,
// the caches hold only the factory's namespace, and the listers read them.
//
// Diagram: steps 3-6, 9. client-go: informers.SharedInformerFactory, listers.
func TestFactorySharesOneInformerPerResource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		create(t, srv.Resource(cmGVR), "team", "settings", "1")
		create(t, srv.Resource(cmGVR), "elsewhere", "other", "1")
		lease := exampleLease()
		lease.SetNamespace("team")
		lease.SetName("leader")
		_, err := srv.Resource(leaseGVR).Namespace("team").Create(context.Background(), lease, metav1.CreateOptions{})
		require.NoError(t, err)
		f := informer.NewSharedInformerFactory(func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return srv.Resource(gvr).Namespace(ns)
		}, 0, informer.WithNamespace("team"), informer.WithInformerOptions(informer.WithLogger(quiet)))

		cmInformer, err := f.ForResource(cmGVR, exampleCM())
		require.NoError(t, err)
		again, err := f.ForResource(cmGVR, exampleCM())
		require.NoError(t, err)
		_, wrongType := f.ForResource(cmGVR, &metav1.PartialObjectMetadata{})
		leases, err := f.ForResource(leaseGVR, exampleLease())
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		synced := f.WaitForCacheSync(ctx)

		assert.Same(t, cmInformer.Informer(), again.Informer())
		t.Logf("ForResource(configmaps) twice: the same informer: %v; with another example type: %v", cmInformer.Informer() == again.Informer(), wrongType)
		t.Logf("   Start, WaitForCacheSync: %v; the ConfigMap cache of the factory for namespace team holds %v", synced, cmInformer.Informer().GetStore().ListKeys())
		assert.Error(t, wrongType)
		assert.Equal(t, map[schema.GroupVersionResource]bool{cmGVR: true, leaseGVR: true}, synced)
		assert.Equal(t, []string{"team/settings"}, cmInformer.Informer().GetStore().ListKeys(), "only the factory's namespace")
		got, err := cmInformer.Lister().Namespace("team").Get("settings")
		require.NoError(t, err)
		assert.Equal(t, "settings", got.(*unstructured.Unstructured).GetName())
		_, err = cmInformer.Lister().Namespace("team").Get("missing")
		assert.True(t, apierrors.IsNotFound(err))
		typed := informer.NewLister[*unstructured.Unstructured](leases.Informer().GetIndexer(), leaseGVR.GroupResource())
		all, err := typed.List(labels.Everything())
		require.NoError(t, err)
		require.Len(t, all, 1)
		assert.Equal(t, "leader", all[0].GetName())

		cancel()
		f.Shutdown()
		assert.True(t, cmInformer.Informer().IsStopped())
		assert.True(t, leases.Informer().IsStopped())
	})
}

// TestFactoryStartsLateInformersAndNothingAfterShutdown requests an
// informer after Start: it runs only once Start is called again. After
// Shutdown, Start does nothing.
//
// Diagram: steps 3-6. client-go: informers.SharedInformerFactory.Start, Shutdown.
func TestFactoryStartsLateInformersAndNothingAfterShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		f := informer.NewSharedInformerFactory(func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return srv.Resource(gvr).Namespace(ns)
		}, 0, informer.WithInformerOptions(informer.WithLogger(quiet)))
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)

		late, err := f.ForResource(cmGVR, exampleCM())
		require.NoError(t, err)
		synctest.Wait()
		assert.False(t, late.Informer().HasStarted())
		f.Start(ctx)
		synctest.Wait()
		assert.True(t, late.Informer().HasStarted())
		t.Log("an informer requested after Start runs only once Start is called again")
		cancel()
		f.Shutdown()
		f.Shutdown()

		afterShutdown, err := f.ForResource(leaseGVR, exampleLease())
		require.NoError(t, err)
		f.Start(t.Context())
		synctest.Wait()
		assert.False(t, afterShutdown.Informer().HasStarted())
		t.Log("   after Shutdown, Start starts nothing")
		assert.NotContains(t, f.WaitForCacheSync(t.Context()), leaseGVR, "never started, so not waited for")
	})
}
