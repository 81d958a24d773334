package informer_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestAtomicFIFOInformerSyncsOnItsOneInitialListDelta: the initial list is
// one ReplacedAll; the informer syncs once it has been applied and handed
// out, also when the list is empty (there is still one delta to process),
// and every listed object reaches the handler as an initial add.
//
// Diagram: steps 2-6. client-go: RealFIFO (AtomicFIFO), processReplacedAllInfo
func TestAtomicFIFOInformerSyncsOnItsOneInitialListDelta(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "b", "1")
		create(t, cms, "ns", "a", "1")
		full := informer.NewSharedIndexInformer(cms.Namespace("ns"), exampleCM(), 0, nil,
			informer.WithQueue(informer.QueueAtomicFIFO), informer.WithLogger(quiet))
		empty := informer.NewSharedIndexInformer(cms.Namespace("elsewhere"), exampleCM(), 0, nil,
			informer.WithQueue(informer.QueueAtomicFIFO), informer.WithLogger(quiet))
		rec, none := newRecorder(), newRecorder()

		startSynced(t, full, rec)
		startSynced(t, empty, none)

		assert.Equal(t, []string{"add ns/a@3 initial", "add ns/b@2 initial"}, rec.take())
		assert.Empty(t, none.take())
		assert.True(t, empty.HasSynced())
	})
}

// TestAtomicFIFOInformerResyncsFromItsCache: a resync is one SyncAll,
// answered from the cache as OnUpdate(x, x) for every cached object, to the
// handlers due for it; the watch events in between are applied in order.
//
// Diagram: steps 2-6. client-go: RealFIFO.Resync (AtomicFIFO), processDeltas (SyncAll)
func TestAtomicFIFOInformerResyncsFromItsCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), time.Minute, nil,
			informer.WithQueue(informer.QueueAtomicFIFO), informer.WithLogger(quiet))
		resyncing, never := newRecorder(), newRecorder()
		_, err := inf.AddEventHandlerWithResyncPeriod(never, 0)
		require.NoError(t, err)
		startSynced(t, inf, resyncing)
		resyncing.take()
		never.take()

		update(t, cms, "ns", "a", "2")
		create(t, cms, "ns", "b", "1")
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()

		assert.Equal(t, []string{"update ns/a@2->3", "add ns/b@4", "update ns/a@3->3", "update ns/b@4->4"}, resyncing.take())
		assert.Equal(t, []string{"update ns/a@2->3", "add ns/b@4"}, never.take())
		assert.Equal(t, serverView(t, cms), cacheView(inf))
	})
}
