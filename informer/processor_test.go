package informer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var discard = slog.New(slog.DiscardHandler)

// gateHandler records every call and, while gate is non-nil, waits for a
// value on gate before returning from each call. It panics on objects named
// "boom".
type gateHandler struct {
	gate chan struct{}

	mu    sync.Mutex // guards calls
	calls []string
}

func (h *gateHandler) record(s string) {
	if h.gate != nil {
		<-h.gate
	}
	if s == "add boom" || s == "add boom (initial)" {
		panic("handler bug")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, s)
}

func (h *gateHandler) OnAdd(obj any, initial bool) {
	if initial {
		h.record(fmt.Sprintf("add %v (initial)", obj))
		return
	}
	h.record(fmt.Sprintf("add %v", obj))
}
func (h *gateHandler) OnUpdate(o, n any) { h.record(fmt.Sprintf("update %v->%v", o, n)) }
func (h *gateHandler) OnDelete(obj any)  { h.record(fmt.Sprintf("delete %v", obj)) }

func (h *gateHandler) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.calls...)
}

// startProcessor runs p until the test's bubble ends it via the returned stop.
func startProcessor(p *sharedProcessor) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

func addNote(obj string) notification {
	return notification{kind: addNotification, newObj: obj}
}

func newTestListener(h ResourceEventHandler, resync time.Duration) *processorListener {
	return newProcessorListener(h, resync, resync, time.Now(), discard)
}

// TestSlowHandlerDoesNotDelayOtherHandlers blocks one handler and
// distributes 100 notifications: the other handler gets all of them at once,
// the blocked one's backlog holds them, and once released it gets them all,
// in order.
//
// Diagram: step 6. client-go: processorListener.pop (unbounded buffer).
func TestSlowHandlerDoesNotDelayOtherHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		slow := &gateHandler{gate: make(chan struct{})}
		fast := &gateHandler{}
		slowL, fastL := newTestListener(slow, 0), newTestListener(fast, 0)
		require.NoError(t, p.addListener(slowL))
		require.NoError(t, p.addListener(fastL))
		stop := startProcessor(p)
		defer stop()

		var want []string
		for i := range 100 {
			p.distribute(addNote(fmt.Sprint(i)), false)
			want = append(want, fmt.Sprintf("add %d", i))
		}
		synctest.Wait()

		assert.Equal(t, want, fast.seen())
		assert.Empty(t, slow.seen())
		assert.Equal(t, 99, slowL.Backlog(), "one notification is being handled, 99 wait")
		assert.Equal(t, 0, fastL.Backlog())
		t.Logf("100 notifications; one handler blocked in its first: the fast one has seen %d, the slow one %d, with Backlog() %d", len(fast.seen()), len(slow.seen()), slowL.Backlog())
		require.NoError(t, p.checkInvariants())

		close(slow.gate)
		synctest.Wait()

		assert.Equal(t, want, slow.seen())
		assert.Equal(t, 0, slowL.Backlog())
		t.Logf("   released, the slow one has seen all %d, in order", len(slow.seen()))
	})
}

// TestHandlerPanicIsRecoveredCountedAndSkipped makes a handler panic on one
// notification: it is counted, the notifications after it still arrive, and
// the panic does not leave the process.
//
// Diagram: step 6. client-go: processorListener.run (which re-panics via HandleCrash).
func TestHandlerPanicIsRecoveredCountedAndSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		h := &gateHandler{}
		l := newTestListener(h, 0)
		require.NoError(t, p.addListener(l))
		stop := startProcessor(p)
		defer stop()

		p.distribute(addNote("a"), false)
		p.distribute(addNote("boom"), false)
		p.distribute(addNote("b"), false)
		synctest.Wait()

		assert.Equal(t, []string{"add a", "add b"}, h.seen())
		assert.Equal(t, int64(1), l.Panics())
	})
}

// TestRegistrationSyncsOnlyAfterItsHandlerProcessedTheInitialList hands a
// blocked handler three initial-list adds and tells it the informer has
// synced: the registration stays unsynced until the handler has returned
// from the third one, then its Done channel closes. A panic on an initial
// add still counts as handled.
//
// Diagram: step 6. client-go: synctrack.SingleFileTracker.
func TestRegistrationSyncsOnlyAfterItsHandlerProcessedTheInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		h := &gateHandler{gate: make(chan struct{})}
		l := newTestListener(h, 0)
		require.NoError(t, p.addListener(l))
		stop := startProcessor(p)
		defer stop()

		for _, name := range []string{"a", "boom", "c"} {
			p.distribute(notification{kind: addNotification, newObj: name, isInInitialList: true}, false)
		}
		p.markUpstreamSynced()
		synctest.Wait()
		assert.False(t, l.HasSynced(), "informer synced, handler has not")

		for range 2 {
			h.gate <- struct{}{}
			synctest.Wait()
			assert.False(t, l.HasSynced())
			require.NoError(t, p.checkInvariants())
		}
		h.gate <- struct{}{}
		synctest.Wait()

		assert.True(t, l.HasSynced())
		assert.Equal(t, []string{"add a (initial)", "add c (initial)"}, h.seen())
		select {
		case <-l.Done():
		default:
			t.Fatal("Done not closed although HasSynced is true")
		}
	})
}

// TestRegistrationDoesNotSyncBeforeTheInformer lets a handler process its
// initial adds; it is synced only once the informer says it is.
//
// Diagram: step 6. client-go: synctrack.SingleFileTracker.UpstreamHasSynced.
func TestRegistrationDoesNotSyncBeforeTheInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		l := newTestListener(&gateHandler{}, 0)
		require.NoError(t, p.addListener(l))
		stop := startProcessor(p)
		defer stop()

		p.distribute(notification{kind: addNotification, newObj: "a", isInInitialList: true}, false)
		synctest.Wait()
		assert.False(t, l.HasSynced())

		p.markUpstreamSynced()

		assert.True(t, l.HasSynced())
	})
}

// TestRemovedListenerGetsNothingMoreAndItsGoroutineExits removes a listener
// while notifications wait in its buffer: they are dropped, new ones are not
// delivered, its goroutine ends, and removing it again is harmless.
//
// Diagram: step 6. client-go: sharedIndexInformer.RemoveEventHandler.
func TestRemovedListenerGetsNothingMoreAndItsGoroutineExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		h := &gateHandler{gate: make(chan struct{})}
		l := newTestListener(h, 0)
		require.NoError(t, p.addListener(l))
		stop := startProcessor(p)
		defer stop()
		p.distribute(addNote("a"), false)
		p.distribute(addNote("b"), false)
		synctest.Wait()

		p.removeListener(l)
		p.removeListener(l)
		p.distribute(addNote("c"), false)
		close(h.gate)
		synctest.Wait()

		assert.Equal(t, []string{"add a"}, h.seen(), "only the call in progress at removal completes")
		<-l.exited
		assert.Equal(t, 0, p.listenerCount())
		require.NoError(t, p.checkInvariants())
	})
}

// TestProcessorStopWaitsForEveryListenerAndRefusesNewOnes stops a running
// processor: run returns only after every listener goroutine has exited,
// and a listener added afterwards is refused.
//
// Diagram: step 6. client-go: sharedProcessor.run.
func TestProcessorStopWaitsForEveryListenerAndRefusesNewOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		ls := []*processorListener{newTestListener(&gateHandler{}, 0), newTestListener(&gateHandler{}, 0)}
		for _, l := range ls {
			require.NoError(t, p.addListener(l))
		}
		stop := startProcessor(p)
		late := newTestListener(&gateHandler{}, 0)
		require.NoError(t, p.addListener(late), "added while running: started at once")
		ls = append(ls, late)

		stop()

		for _, l := range ls {
			select {
			case <-l.exited:
			default:
				t.Fatal("a listener goroutine outlived the processor")
			}
		}
		assert.ErrorIs(t, p.addListener(newTestListener(&gateHandler{}, 0)), errProcessorStopped)
		require.NoError(t, p.checkInvariants())
	})
}

// TestResyncFlagsStartSetAndOnlyTheResyncCheckChangesThem pins client-go's
// subtlety (REFERENCE §1.8): every listener starts flagged as syncing, so a
// same-resourceVersion update reaches all of them until the first resync
// check; from then on only the listeners due at the latest check get it.
// Ordinary notifications always reach everyone.
//
// Diagram: step 6. client-go: sharedProcessor.shouldResync / distribute(sync).
func TestResyncFlagsStartSetAndOnlyTheResyncCheckChangesThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newSharedProcessor(discard)
		never, every10s := &gateHandler{}, &gateHandler{}
		require.NoError(t, p.addListener(newTestListener(never, 0)))
		require.NoError(t, p.addListener(newTestListener(every10s, 10*time.Second)))
		stop := startProcessor(p)
		defer stop()
		syncNote := notification{kind: updateNotification, oldObj: "x", newObj: "x"}

		p.distribute(syncNote, true)
		synctest.Wait()
		assert.Equal(t, []string{"update x->x"}, never.seen(), "flagged from the start")
		assert.Equal(t, []string{"update x->x"}, every10s.seen())
		t.Log("a sync notification before any resync check reaches both listeners (no resync, and 10s)")

		due := p.shouldResync() // at 0s nobody is due
		p.distribute(syncNote, true)
		synctest.Wait()
		assert.False(t, due)
		assert.Len(t, never.seen(), 1)
		assert.Len(t, every10s.seen(), 1)
		t.Log("   a resync check at 0s: nobody is due; the next sync notification reaches nobody")

		time.Sleep(10 * time.Second)
		due = p.shouldResync()
		p.distribute(syncNote, true)
		p.distribute(addNote("y"), false)
		synctest.Wait()
		assert.True(t, due)
		t.Logf("   a check at 10s: the 10s listener is due; after a sync and an add it has seen %v, the other %v", every10s.seen(), never.seen())
		assert.Equal(t, []string{"update x->x", "add y"}, never.seen())
		assert.Equal(t, []string{"update x->x", "update x->x", "add y"}, every10s.seen())

		time.Sleep(5 * time.Second)
		due = p.shouldResync() // next due at 20s
		assert.False(t, due)
	})
}

// TestDetermineResyncPeriod covers client-go's normalisation of a handler's
// resync period against the informer's resync check period.
//
// Diagram: step 6. client-go: determineResyncPeriod.
func TestDetermineResyncPeriod(t *testing.T) {
	tests := []struct {
		name                  string
		desired, check, wants time.Duration
	}{
		{"no resync requested", 0, 30 * time.Second, 0},
		{"informer never checks", 10 * time.Second, 0, 0},
		{"shorter than the check period is raised", 10 * time.Second, 30 * time.Second, 30 * time.Second},
		{"longer is kept", time.Minute, 30 * time.Second, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wants, determineResyncPeriod(discard, tt.desired, tt.check))
		})
	}
}
