package walkthrough

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionStaleReadAfterOwnWrite writes an object and reads it back
// from the informer's cache straight away. The write went to the server;
// the cache learns of it only when the watch event arrives, which is usually
// milliseconds later — here the watch is held still (fakeapi HangWatches)
// to make that window visible. Inside it the lister returns the old object,
// and a second write built from that stale copy is refused with 409
// Conflict, because it carries the old resourceVersion. Once the event
// arrives the cache catches up, and the handler gets the update that a
// level-triggered controller would have waited for instead.
//
// Diagram: steps 1, 5, 9. client-go: the informer's eventual consistency; optimistic concurrency (resourceVersion preconditions).
func TestConfusionStaleReadAfterOwnWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		before := create(t, cms, configMap("ns", "a", "1"))
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		rec := &recorder{}
		startInformer(t, inf, rec)
		rec.takeLines()
		lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), cmGVR.GroupResource())

		srv.HangWatches(true)
		written := setValue(t, cms, "a", "2")
		cached, err := lister.Namespace("ns").Get("a")
		require.NoError(t, err)

		t.Log("1. The watch is held still; we write data.value=2, then read the object back from the lister")
		t.Logf("   the server holds value %q at resourceVersion %s; the lister returns value %q at resourceVersion %s", value(written), rvOf(written), value(cached), rvOf(cached))
		assert.Equal(t, "1", value(cached), "the cache has not seen our own write")
		assert.Equal(t, rvOf(before), rvOf(cached))
		assert.NotEqual(t, rvOf(written), rvOf(cached))
		next := cached.DeepCopy()
		next.Object["data"] = map[string]any{"value": "3"}
		_, err = cms.Update(context.Background(), next, metav1.UpdateOptions{})
		assert.True(t, apierrors.IsConflict(err), "a write based on the stale copy is refused: %v", err)
		t.Logf("2. A write built from the stale copy is refused with 409 Conflict: %v", err)

		srv.HangWatches(false)
		synctest.Wait()

		cached, err = lister.Namespace("ns").Get("a")
		require.NoError(t, err)
		assert.Equal(t, rvOf(written), rvOf(cached), "the cache caught up")
		t.Logf("3. The watch delivers again: the lister now returns resourceVersion %s", rvOf(cached))
		assert.Equal(t, []string{"update ns/a@" + rvOf(before) + "->" + rvOf(written)}, rec.takeLines(),
			"and our own write came back as an event")
	})
}
