package informer_test

import (
	"context"
	"net/http"
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

// settle lets fake time run on long enough for any backoff (at most 30s) to
// expire, then waits until every goroutine in the bubble is idle.
func settle() {
	time.Sleep(40 * time.Second)
	synctest.Wait()
}

// expired is the watch error of a compacted history: the Reflector relists.
var expired = &metav1.Status{Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}

// startSynced registers handlers, runs inf, and waits until it and every
// registration have synced, then until every goroutine is blocked: the
// informer reports synced a moment before its Reflector has opened the
// watch, and a fault injected in that moment would find no watch. It must
// run inside a synctest bubble.
func startSynced(t *testing.T, inf informer.SharedIndexInformer, handlers ...informer.ResourceEventHandler) []informer.ResourceEventHandlerRegistration {
	t.Helper()
	var regs []informer.ResourceEventHandlerRegistration
	checkers := []informer.DoneChecker{inf}
	for _, h := range handlers {
		reg, err := inf.AddEventHandler(h)
		require.NoError(t, err)
		regs = append(regs, reg)
		checkers = append(checkers, reg)
	}
	run(t, inf)
	require.True(t, informer.WaitForCacheSync(t.Context(), checkers...))
	require.NoError(t, informer.CheckInvariants(inf))
	synctest.Wait()
	return regs
}

// TestRelistAfterGoneTurnsAnObjectDeletedWhileDisconnectedIntoATombstone
// deletes an object without a watch event, compacts the history and drops
// the watches: the Reflector's re-watch from its last resourceVersion gets
// 410 Gone, it relists, and the
// relist no longer lists the object, so the handler gets OnDelete with a
// DeletedFinalStateUnknown carrying the last state the cache knew. The
// object that did not change comes back as an update with an unchanged
// resourceVersion.
//
// Diagram: steps 1-6. client-go: DeltaFIFO.Replace (tombstones), processDeltas.
func TestRelistAfterGoneTurnsAnObjectDeletedWhileDisconnectedIntoATombstone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		a := create(t, cms, "ns", "a", "1")
		b := create(t, cms, "ns", "b", "1")
		lw := &spyLW{lw: cms}
		inf := informer.NewSharedIndexInformer(lw, exampleCM(), 0, nil, informer.WithLogger(quiet))
		rec := newRecorder()
		startSynced(t, inf, rec)
		rec.take()

		err := srv.SilentResource(cmGVR).Namespace("ns").Delete(context.Background(), "a", metav1.DeleteOptions{})
		require.NoError(t, err)
		srv.Compact()
		time.Sleep(5 * time.Second) // a watch that ends younger than 1s is itself a reason to relist
		srv.CloseWatches()
		settle()

		lists, watchErrors := lw.seen()
		got := rec.take()
		t.Log("a is deleted with no watch event; the history is compacted; the watch is dropped")
		t.Logf("   the re-watch was refused with %v; lists in all: %d; the handler saw: %s", watchErrors, lists, strings.Join(got, ", "))
		assert.Equal(t, []int32{http.StatusGone}, watchErrors, "the re-watch was refused")
		assert.Equal(t, 2, lists, "the initial list and one relist")
		assert.Equal(t, []string{
			"update ns/b@" + b.GetResourceVersion() + "->" + b.GetResourceVersion(),
			"delete ns/a (tombstone of @" + a.GetResourceVersion() + ")",
		}, got)
		assert.Equal(t, serverView(t, cms), cacheView(inf))
		require.NoError(t, informer.CheckInvariants(inf))
		view, problems := rec.snapshot()
		assert.Empty(t, problems)
		assert.Equal(t, serverView(t, cms), view)
	})
}

// TestRelistOfUnchangedObjectsReachesEveryHandlerWhenTheInformerNeverResyncs
// forces a relist on an informer with no resync period. The relist finds the
// object unchanged and delivers it as an update with equal resourceVersions,
// a "sync" notification. Every handler gets it: the resync flags start set
// and, with no resync period, nothing ever clears them (REFERENCE §1.8).
//
// Diagram: step 6. client-go: sharedIndexInformer.OnUpdate, sharedProcessor.distribute.
func TestRelistOfUnchangedObjectsReachesEveryHandlerWhenTheInformerNeverResyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		a := create(t, cms, "ns", "a", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		first, second := newRecorder(), newRecorder()
		startSynced(t, inf, first, second)
		first.take()
		second.take()

		srv.InjectWatchError(expired)
		settle()

		noop := "update ns/a@" + a.GetResourceVersion() + "->" + a.GetResourceVersion()
		firstGot, secondGot := first.take(), second.take()
		t.Logf("a 410 forces a relist of an unchanged object on an informer with no resync: first handler %v, second handler %v", firstGot, secondGot)
		assert.Equal(t, []string{noop}, firstGot)
		assert.Equal(t, []string{noop}, secondGot)
	})
}

// TestRelistOfUnchangedObjectsReachesOnlyHandlersDueForResync runs an
// informer with a 1m resync period and three handlers: one with the default
// 1m, one with no resync, one with 3m. Before the first resync check every
// handler is flagged, so a relist's unchanged object reaches all three. At
// the first check (one period after the watch started) only the 1m handler
// is due: it gets the periodic resync, and the flags now say "only it", so
// the next relist's unchanged object reaches it alone.
//
// Diagram: step 6. client-go: sharedProcessor.shouldResync, distribute(sync).
func TestRelistOfUnchangedObjectsReachesOnlyHandlersDueForResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		a := create(t, cms, "ns", "a", "1")
		noop := "update ns/a@" + a.GetResourceVersion() + "->" + a.GetResourceVersion()
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), time.Minute, nil, informer.WithLogger(quiet))
		every1m, never, every3m := newRecorder(), newRecorder(), newRecorder()
		_, err := inf.AddEventHandlerWithResyncPeriod(never, 0)
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithResyncPeriod(every3m, 3*time.Minute)
		require.NoError(t, err)
		startSynced(t, inf, every1m)
		synctest.Wait()
		for _, r := range []*recorder{every1m, never, every3m} {
			r.take()
		}

		srv.InjectWatchError(expired) // relist before any resync check
		settle()
		t.Log("handlers with resync 1m, none and 3m on an informer with a 1m resync; a relist finds a unchanged")
		t.Logf("   before the first resync check every handler gets %q", noop)
		assert.Equal(t, []string{noop}, every1m.take(), "before the first check everyone is flagged")
		assert.Equal(t, []string{noop}, never.take())
		assert.Equal(t, []string{noop}, every3m.take())

		time.Sleep(time.Minute) // the first resync check: only the 1m handler is due
		synctest.Wait()
		t.Log("   at the first check, one minute in, only the 1m handler is due: it alone gets the periodic resync")
		assert.Equal(t, []string{noop}, every1m.take(), "the periodic resync")
		assert.Empty(t, never.take())
		assert.Empty(t, every3m.take())

		srv.InjectWatchError(expired) // relist after the check
		settle()
		t.Log("   a relist after that check: the unchanged object reaches the 1m handler alone")
		assert.Equal(t, []string{noop}, every1m.take(), "still flagged from the last check")
		assert.Empty(t, never.take(), "cleared at the last check")
		assert.Empty(t, every3m.take(), "not due at the last check")
	})
}
