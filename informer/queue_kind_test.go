package informer_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// relistAfterDisconnection runs one scenario on an informer with the given
// queue and returns what its handler saw after the initial list: a, b and c
// exist; while the watch is down (writes without watch events) b is
// deleted, c updated and d created; then the history is compacted, the
// watch dropped, and the Reflector relists.
func relistAfterDisconnection(t *testing.T, kind informer.QueueKind) []string {
	srv := newServer(t, fakeapi.Options{})
	cms := srv.Resource(cmGVR)
	for _, name := range []string{"a", "b", "c"} {
		create(t, cms, "ns", name, "1")
	}
	inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil,
		informer.WithQueue(kind), informer.WithLogger(quiet))
	rec := newRecorder()
	startSynced(t, inf, rec)
	rec.take()

	silent := srv.SilentResource(cmGVR).Namespace("ns")
	ctx := context.Background()
	require.NoError(t, silent.Delete(ctx, "b", metav1.DeleteOptions{}))
	c, err := silent.Get(ctx, "c", metav1.GetOptions{})
	require.NoError(t, err)
	setValue(c, "2")
	_, err = silent.Update(ctx, c, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = silent.Create(ctx, newCM("ns", "d", "1"), metav1.CreateOptions{})
	require.NoError(t, err)
	srv.Compact()
	time.Sleep(5 * time.Second)
	srv.CloseWatches()
	settle()

	view, problems := rec.snapshot()
	assert.Empty(t, problems)
	assert.Equal(t, serverView(t, cms), view)
	assert.Equal(t, serverView(t, cms), cacheView(inf))
	return rec.take()
}

// TestQueueKindsDeliverARelistInDifferentOrders runs the same disconnection
// on the three queues. All end with the same cache and the same handler
// view; the order differs. The DeltaFIFO queues the listed objects first (in
// list order) and the tombstones for vanished objects after them; the
// RealFIFO queues the tombstones first, then the listed objects; the atomic
// RealFIFO queues one ReplacedAll, and the informer, comparing it with its
// cache, tells of the deletions first and then of the list in list order:
// the same order as the RealFIFO, but only after the whole cache has been
// replaced (TestReplacedAllReplacesTheWholeCacheBeforeAnyHandlerIsTold).
// (Resource versions: a=2, b=3, c=4 at the start; the silent writes take
// 5, 6 and 7.)
//
// Diagram: steps 2-6. client-go: DeltaFIFO.Replace vs RealFIFO.Replace (non-atomic and atomic).
func TestQueueKindsDeliverARelistInDifferentOrders(t *testing.T) {
	var deltaFIFO, realFIFO, atomicFIFO []string
	synctest.Test(t, func(t *testing.T) { deltaFIFO = relistAfterDisconnection(t, informer.QueueDeltaFIFO) })
	synctest.Test(t, func(t *testing.T) { realFIFO = relistAfterDisconnection(t, informer.QueueRealFIFO) })
	synctest.Test(t, func(t *testing.T) { atomicFIFO = relistAfterDisconnection(t, informer.QueueAtomicFIFO) })
	t.Log("a, b, c cached; while disconnected b is deleted, c updated, d created; then a relist")
	t.Logf("   with the DeltaFIFO the handler sees: %s", strings.Join(deltaFIFO, ", "))
	t.Logf("   with the RealFIFO the handler sees:  %s", strings.Join(realFIFO, ", "))
	t.Logf("   with the atomic RealFIFO the handler sees: %s", strings.Join(atomicFIFO, ", "))

	assert.Equal(t, []string{
		"update ns/a@2->2",
		"update ns/c@4->6",
		"add ns/d@7",
		"delete ns/b (tombstone of @3)",
	}, deltaFIFO)
	assert.Equal(t, []string{
		"delete ns/b (tombstone of @3)",
		"update ns/a@2->2",
		"update ns/c@4->6",
		"add ns/d@7",
	}, realFIFO)
	assert.Equal(t, realFIFO, atomicFIFO)
}
