package walkthrough

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/workqueue"
)

// TestConfusionQueueHoldsKeys feeds one informer's notifications into two
// queues while no worker runs: one queue of keys, as every controller does,
// and one of the objects themselves. After five updates of "a" and one of
// "b", the key queue holds two items — one per object — and the worker that
// takes "ns/a" reads the newest state from the cache. The object queue holds
// six items, and the first one a worker would take is a state of "a" that
// is four updates old.
//
// Diagram: steps 6-9. client-go: workqueue.Type.Add (the dirty set), sample-controller enqueueFoo.
func TestConfusionQueueHoldsKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		create(t, cms, configMap("ns", "a", "0"))
		create(t, cms, configMap("ns", "b", "0"))
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		keys := workqueue.New[string]()
		objects := workqueue.New[*unstructured.Unstructured]()
		t.Cleanup(keys.ShutDown)
		t.Cleanup(objects.ShutDown)
		startInformer(t, inf, informer.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, newObj any) {
				key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(newObj)
				assert.NoError(t, err)
				keys.Add(key)
				objects.Add(newObj.(*unstructured.Unstructured))
			},
		})

		for _, v := range []string{"1", "2", "3", "4", "5"} {
			setValue(t, cms, "a", v)
		}
		setValue(t, cms, "b", "1")
		synctest.Wait()
		t.Log("1. Five updates of ns/a and one of ns/b reach the handler, which adds each to both queues")
		t.Logf("   the key queue holds %d items, the object queue %d", keys.Len(), objects.Len())

		assert.Equal(t, 2, keys.Len(), "six events, two keys: adds of a waiting key collapse")
		assert.Equal(t, 6, objects.Len(), "six events, six objects: nothing collapses")
		key, _ := keys.Get()
		defer keys.Done(key)
		require.Equal(t, "ns/a", key)
		fresh := mustGet(t, inf, key) // step 9: the worker reads the key's object from the cache
		t.Logf("2. A worker takes the key %q and reads the cache: data.value=%q, the newest state", key, value(fresh))
		assert.Equal(t, "5", value(fresh), "the key leads to the newest state")
		old, _ := objects.Get()
		defer objects.Done(old)
		t.Logf("3. A worker takes the first object from the object queue: data.value=%q, four updates old", value(old))
		assert.Equal(t, "1", value(old), "the queued object is a state four updates old")
	})
}
