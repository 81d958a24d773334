package informer_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// gated wraps a recorder: every call first waits for a value on gate.
type gated struct {
	*recorder
	gate chan struct{}
}

func (g gated) OnAdd(obj any, initial bool) { <-g.gate; g.recorder.OnAdd(obj, initial) }
func (g gated) OnUpdate(oldObj, newObj any) { <-g.gate; g.recorder.OnUpdate(oldObj, newObj) }
func (g gated) OnDelete(obj any)            { <-g.gate; g.recorder.OnDelete(obj) }

// TestLateHandlerGetsTheWholeCacheOnceThenLiveEvents adds a handler to a
// running, synced informer: it first gets every cached object as
// OnAdd(obj, true), exactly once, then the live changes, like the handler
// that was there from the start. The early handler gets no replay.
//
// Diagram: step 6. client-go: sharedIndexInformer.AddEventHandlerWithOptions (late joiner).
func TestLateHandlerGetsTheWholeCacheOnceThenLiveEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		a := create(t, cms, "ns", "a", "1")
		b := create(t, cms, "ns", "b", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		early := newRecorder()
		startSynced(t, inf, early)
		early.take()

		late := newRecorder()
		reg, err := inf.AddEventHandler(late)
		require.NoError(t, err)
		require.True(t, informer.WaitForCacheSync(t.Context(), reg))
		replay := late.take()
		a2 := update(t, cms, "ns", "a", "2")
		remove(t, cms, "ns", "b")
		deletedAt := strconv.FormatUint(srv.CurrentResourceVersion(), 10)
		synctest.Wait()

		t.Logf("a handler added to a synced informer first gets the cache: %s", strings.Join(slices.Sorted(slices.Values(replay)), ", "))
		assert.ElementsMatch(t, []string{
			"add ns/a@" + a.GetResourceVersion() + " initial",
			"add ns/b@" + b.GetResourceVersion() + " initial",
		}, replay, "the cache, in no particular order")
		live := []string{
			"update ns/a@" + a.GetResourceVersion() + "->" + a2.GetResourceVersion(),
			"delete ns/b@" + deletedAt,
		}
		lateLive, earlyLive := late.take(), early.take()
		t.Logf("   then live events, as the early handler does: %s", strings.Join(lateLive, ", "))
		t.Logf("   the early handler got no replay: %s", strings.Join(earlyLive, ", "))
		assert.Equal(t, live, lateLive)
		assert.Equal(t, live, earlyLive, "no replay for the handler already there")
	})
}

// TestRegistrationHasSyncedWaitsForItsHandler holds a handler inside its
// first OnAdd: the informer syncs, the registration does not until the
// handler has returned from every OnAdd of the initial list.
//
// Diagram: step 6. client-go: ResourceEventHandlerRegistration.HasSynced.
func TestRegistrationHasSyncedWaitsForItsHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		for _, name := range []string{"a", "b", "c"} {
			create(t, cms, "ns", name, "1")
		}
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		slow := gated{newRecorder(), make(chan struct{})}
		reg, err := inf.AddEventHandler(slow)
		require.NoError(t, err)
		run(t, inf)

		require.True(t, informer.WaitForCacheSync(t.Context(), inf))
		synctest.Wait()
		assert.False(t, reg.HasSynced(), "the informer has synced; its handler has not")
		assert.Equal(t, 2, reg.Backlog(), "one add in progress, two waiting")
		t.Logf("the handler is held in its first OnAdd: informer HasSynced=%v, registration HasSynced=%v, Backlog()=%d", inf.HasSynced(), reg.HasSynced(), reg.Backlog())

		slow.gate <- struct{}{}
		slow.gate <- struct{}{}
		synctest.Wait()
		assert.False(t, reg.HasSynced())
		slow.gate <- struct{}{}
		synctest.Wait()

		assert.True(t, reg.HasSynced())
		t.Logf("   once it has returned from all three OnAdds of the initial list: registration HasSynced=%v", reg.HasSynced())
		assert.Len(t, slow.take(), 3)
		close(slow.gate)
	})
}

// TestRemoveEventHandlerStopsDelivery removes one of two handlers: it gets
// nothing more while the other goes on; removing it again, or removing a
// handle of another informer, does nothing; a handle that is not a
// registration is an error.
//
// Diagram: step 6. client-go: sharedIndexInformer.RemoveEventHandler.
func TestRemoveEventHandlerStopsDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		kept, removed := newRecorder(), newRecorder()
		regs := startSynced(t, inf, kept, removed)
		other := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		foreign, err := other.AddEventHandler(newRecorder())
		require.NoError(t, err)
		kept.take()
		removed.take()

		require.NoError(t, inf.RemoveEventHandler(regs[1]))
		require.NoError(t, inf.RemoveEventHandler(regs[1]), "idempotent")
		require.NoError(t, inf.RemoveEventHandler(foreign), "another informer's handle: a no-op")
		update(t, cms, "ns", "a", "2")
		create(t, cms, "ns", "b", "1")
		synctest.Wait()

		keptGot, removedGot := kept.take(), removed.take()
		t.Logf("one of two handlers removed, then an update and a create: the kept one got %v, the removed one %v", keptGot, removedGot)
		t.Logf("   RemoveEventHandler(nil): %v", inf.RemoveEventHandler(nil))
		assert.Len(t, keptGot, 2)
		assert.Empty(t, removedGot)
		assert.Error(t, inf.RemoveEventHandler(nil))
	})
}

// panicky panics on every object called "boom".
type panicky struct{ *recorder }

func (p panicky) OnAdd(obj any, initial bool) {
	if keyOf(obj) == "ns/boom" {
		panic("a bug in the handler")
	}
	p.recorder.OnAdd(obj, initial)
}

// TestHandlerPanicIsCountedAndTheInformerGoesOn makes a handler panic on one
// object: the panic is counted, the handler gets the next change, and the
// other handler and the cache are unaffected.
//
// Diagram: step 6. client-go: processorListener.run (where HandleCrash re-panics by default).
func TestHandlerPanicIsCountedAndTheInformerGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		buggy, fine := panicky{newRecorder()}, newRecorder()
		regs := startSynced(t, inf, buggy, fine)

		create(t, cms, "ns", "boom", "1")
		create(t, cms, "ns", "after", "1")
		synctest.Wait()

		assert.Equal(t, int64(1), regs[0].Panics())
		t.Logf("a handler panics on ns/boom: Panics()=%d; the cache holds %v", regs[0].Panics(), inf.GetStore().ListKeys())
		assert.Len(t, buggy.take(), 1, "the object after the panic arrived")
		assert.Len(t, fine.take(), 2)
		assert.Len(t, inf.GetStore().ListKeys(), 2)
	})
}

// resyncTimes records when each same-resourceVersion update arrives,
// measured from start.
type resyncTimes struct {
	start time.Time
	times chan time.Duration
}

func (r resyncTimes) OnAdd(any, bool) {}
func (r resyncTimes) OnDelete(any)    {}
func (r resyncTimes) OnUpdate(oldObj, newObj any) {
	if rvOf(oldObj) == rvOf(newObj) {
		r.times <- time.Since(r.start).Round(time.Second)
	}
}

func (r resyncTimes) drain() []time.Duration {
	var out []time.Duration
	for {
		select {
		case d := <-r.times:
			out = append(out, d)
		default:
			return out
		}
	}
}

// TestHandlerResyncPeriodsAreNormalised pins client-go's rules for a
// handler's resync period on an informer with a 1m default: before Run, a
// shorter period (20s) lowers the informer's check period to it; after Run,
// a shorter one (5s) is raised to the check period, and so is one under the
// 1s minimum; 0 never resyncs. Resyncs happen at checks, so every handler
// resyncs on the 20s grid.
//
// Diagram: step 6. client-go: AddEventHandlerWithResyncPeriod, determineResyncPeriod.
func TestHandlerResyncPeriodsAreNormalised(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{BookmarkInterval: -1})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		start := time.Now()
		handler := func() resyncTimes { return resyncTimes{start, make(chan time.Duration, 100)} }
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), time.Minute, nil, informer.WithLogger(quiet))
		byDefault, every20s, raised, tiny, never := handler(), handler(), handler(), handler(), handler()
		_, err := inf.AddEventHandlerWithResyncPeriod(every20s, 20*time.Second)
		require.NoError(t, err)
		startSynced(t, inf, byDefault)
		_, err = inf.AddEventHandlerWithResyncPeriod(raised, 5*time.Second)
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithResyncPeriod(tiny, time.Millisecond)
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithResyncPeriod(never, 0)
		require.NoError(t, err)

		time.Sleep(130 * time.Second)
		synctest.Wait()

		s := time.Second
		got := map[string][]time.Duration{"default 1m": byDefault.drain(), "20s before Run": every20s.drain(), "5s after Run": raised.drain(), "1ms after Run": tiny.drain(), "0": never.drain()}
		for _, name := range []string{"default 1m", "20s before Run", "5s after Run", "1ms after Run", "0"} {
			t.Logf("handler resync %-14s resynced at %v", name+":", got[name])
		}
		assert.Equal(t, []time.Duration{60 * s, 120 * s}, got["default 1m"])
		assert.Equal(t, []time.Duration{20 * s, 40 * s, 60 * s, 80 * s, 100 * s, 120 * s}, got["20s before Run"])
		assert.Equal(t, []time.Duration{20 * s, 40 * s, 60 * s, 80 * s, 100 * s, 120 * s}, got["5s after Run"])
		assert.Equal(t, []time.Duration{20 * s, 40 * s, 60 * s, 80 * s, 100 * s, 120 * s}, got["1ms after Run"])
		assert.Empty(t, got["0"])
		_, err = inf.AddEventHandlerWithResyncPeriod(never, -time.Second)
		assert.Error(t, err)
	})
}

// TestInformerLifecycle checks what may be done when: SetTransform and
// SetWatchErrorHandler only before Run, AddIndexers before and after Run
// (indexing what is cached), a second Run ignored, and nothing added after
// the informer stopped.
//
// Diagram: steps 3-6. client-go: sharedIndexInformer (startedLock, stopped).
func TestInformerLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet))
		require.NoError(t, inf.SetTransform(func(obj any) (any, error) { return obj, nil }))
		require.NoError(t, inf.SetWatchErrorHandler(nil))
		assert.False(t, inf.HasStarted())
		assert.Empty(t, inf.LastSyncResourceVersion())

		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); inf.Run(ctx) }()
		require.True(t, informer.WaitForCacheSync(ctx, inf))

		assert.True(t, inf.HasStarted())
		assert.ErrorContains(t, inf.SetTransform(nil), "already started")
		assert.ErrorContains(t, inf.SetWatchErrorHandler(nil), "already started")
		require.NoError(t, inf.AddIndexers(indexer.Indexers{"value": valueIndex}))
		byValue, err := inf.GetIndexer().ByIndex("value", "1")
		require.NoError(t, err)
		assert.Len(t, byValue, 1, "the cached object was indexed at once")
		inf.Run(ctx) // ignored: returns at once
		assert.False(t, inf.IsStopped())

		cancel()
		<-done
		assert.True(t, inf.IsStopped())
		require.NoError(t, informer.CheckInvariants(inf))
		_, err = inf.AddEventHandler(newRecorder())
		assert.ErrorContains(t, err, "stopped")
		assert.Error(t, inf.AddIndexers(indexer.Indexers{"other": valueIndex}))
	})
}

func valueIndex(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, errors.New("not unstructured")
	}
	v, _, err := unstructured.NestedString(u.Object, "data", "value")
	return []string{v}, err
}

// TestBadArgumentsAreErrorsNotPanics builds an informer without a
// ListerWatcher: Run returns at once and AddEventHandler reports why.
//
// Diagram: steps 3-6. client-go: NewSharedIndexInformer.
func TestBadArgumentsAreErrorsNotPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf := informer.NewSharedIndexInformer(nil, exampleCM(), 0, nil, informer.WithLogger(quiet))
		bad := informer.NewSharedIndexInformer(newServer(t, fakeapi.Options{}).Resource(cmGVR), exampleCM(), 0, nil,
			informer.WithLogger(quiet), informer.WithQueue(informer.QueueKind(7)))

		inf.Run(t.Context())
		_, err := inf.AddEventHandler(newRecorder())
		_, errQueue := bad.AddEventHandler(newRecorder())
		_, errNil := bad.AddEventHandler(nil)

		assert.True(t, inf.IsStopped())
		assert.False(t, inf.HasSynced())
		assert.ErrorContains(t, err, "needs a ListerWatcher")
		assert.ErrorContains(t, errQueue, "unknown queue kind QueueKind(7)")
		assert.ErrorContains(t, errNil, "nil event handler")
	})
}
