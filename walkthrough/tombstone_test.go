package walkthrough

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionTombstoneAfterRelist deletes an object while the informer
// cannot see it (a write that emits no watch event), then compacts the
// server's history and drops the watch. The re-watch is refused with 410,
// the Reflector relists, the list no longer has the object, and the handler
// gets OnDelete with a deltafifo.DeletedFinalStateUnknown — not the object —
// whose Key is right and whose Obj is the last state the cache held. A delete
// handler that type-asserts to the object type would drop it.
//
// Diagram: steps 1-6. client-go: DeltaFIFO.Replace, DeletedFinalStateUnknown.
func TestConfusionTombstoneAfterRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		a := create(t, cms, configMap("ns", "a", "last seen"))
		b := create(t, cms, configMap("ns", "b", "1"))
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		rec := &recorder{}
		startInformer(t, inf, rec)
		t.Logf("1. The informer has synced: %s", strings.Join(rec.takeLines(), ", "))

		time.Sleep(5 * time.Second) // a watch that ends within 1s of opening is a different failure
		require.NoError(t, srv.SilentResource(cmGVR).Namespace("ns").Delete(context.Background(), "a", metav1.DeleteOptions{}))
		srv.Compact()
		srv.CloseWatches()
		t.Log("2. ns/a is deleted with no watch event, the history is compacted, the watch dropped")
		time.Sleep(2 * time.Second) // the backoff before the relist
		synctest.Wait()

		lines, objs := rec.take()
		t.Logf("3. The re-watch gets 410, the Reflector relists, ns/a is not in the list: %s", strings.Join(lines, ", "))
		require.Equal(t, []string{"update ns/b@" + rvOf(b) + "->" + rvOf(b), "delete ns/a (tombstone of @" + rvOf(a) + ")"}, lines)
		tombstone, ok := objs[1].(deltafifo.DeletedFinalStateUnknown)
		require.True(t, ok, "OnDelete got %T, not the object", objs[1])
		t.Logf("   OnDelete got a %T with Key %q and Obj at data.value=%q, not a ConfigMap", tombstone, tombstone.Key, value(tombstone.Obj))
		assert.Equal(t, "ns/a", tombstone.Key)
		assert.Equal(t, "last seen", value(tombstone.Obj), "Obj is the last state the cache knew")
		key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(objs[1])
		require.NoError(t, err)
		assert.Equal(t, "ns/a", key, "the key function delete handlers should use understands tombstones")
		t.Logf("   DeletionHandlingMetaNamespaceKeyFunc(tombstone) = %q", key)
		_, exists, err := inf.GetStore().GetByKey("ns/a")
		require.NoError(t, err)
		assert.False(t, exists, "the cache dropped the object")
	})
}
