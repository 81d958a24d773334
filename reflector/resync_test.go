package reflector_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/reflector"
)

// countResyncs returns how many of ops are "resync".
func countResyncs(ops []string) int {
	n := 0
	for _, op := range ops {
		if op == "resync" {
			n++
		}
	}
	return n
}

// While watching, Store.Resync is called every ResyncPeriod on its own timer.
// A resync reads nothing from the server: it is not a relist.
// Diagram: step 2. client-go: Reflector.startResync
func TestResyncCallsStoreResyncEveryPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{ResyncPeriod: 30 * time.Second, IdleTimeout: -1})
		h.sync(t, "10")
		h.store.take()

		time.Sleep(29 * time.Second)
		h.settle(t)
		assert.Empty(t, h.store.take())
		time.Sleep(time.Second)
		h.settle(t)
		assert.Equal(t, []string{"resync"}, h.store.take())
		time.Sleep(60 * time.Second)
		h.settle(t)
		assert.Equal(t, []string{"resync", "resync"}, h.store.take())
		h.lw.expectNoCall(t, time.Nanosecond)
	})
}

// The resync timer belongs to the whole watch phase: a clean re-watch does
// not restart it.
// Diagram: step 2. client-go: Reflector.watchWithResync
func TestResyncTimerRunsAcrossRewatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{ResyncPeriod: 30 * time.Second, IdleTimeout: -1})
		w := h.sync(t, "10")

		time.Sleep(20 * time.Second)
		w.Stop()
		h.lw.expectWatch(t, "10").respondWatch()
		time.Sleep(10 * time.Second)
		h.settle(t)

		assert.Equal(t, []string{"replace@10 []", "resync"}, h.store.take())
	})
}

// ShouldResync is asked at every tick; false skips that resync.
// Diagram: step 2. client-go: Reflector.ShouldResync
func TestShouldResyncFalseSkipsResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		allow := make(chan bool, 10)
		allow <- false
		allow <- true
		h := start(t, reflector.Options{ResyncPeriod: time.Minute, IdleTimeout: -1,
			ShouldResync: func() bool { return <-allow }})
		h.sync(t, "10")
		h.store.take()

		time.Sleep(time.Minute)
		h.settle(t)
		assert.Empty(t, h.store.take())
		time.Sleep(time.Minute)
		h.settle(t)
		assert.Equal(t, []string{"resync"}, h.store.take())
	})
}

// With no ResyncPeriod, Resync is never called.
// Diagram: step 2. client-go: Reflector.resyncChan (period 0)
func TestZeroResyncPeriodNeverResyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{IdleTimeout: -1})
		h.sync(t, "10")
		time.Sleep(24 * time.Hour)
		h.settle(t)
		assert.Equal(t, []string{"replace@10 []"}, h.store.take())
	})
}

// A failing Resync ends the watch: the watch is stopped, the Reflector backs
// off and relists, and no resync runs until the next watch phase.
// Diagram: step 2. client-go: Reflector.watch (resyncerrc)
func TestResyncErrorEndsWatchAndRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{ResyncPeriod: 10 * time.Second, IdleTimeout: -1})
		w := h.sync(t, "10")
		h.store.failWith("resync", errors.New("queue closed"))

		before := time.Now()
		c := h.lw.expectList(t, "10", 0)
		assert.Equal(t, 10*time.Second+800*time.Millisecond, time.Since(before))
		assert.True(t, w.IsStopped())
		assert.Contains(t, h.logs.String(), "resync failed: queue closed")
		h.settle(t) // no resync goroutine while listing (checkInvariants)
		h.store.failWith("resync", nil)
		c.respondList(podList("11"))
		h.lw.expectWatch(t, "11").respondWatch()
		time.Sleep(10 * time.Second)
		h.settle(t)

		assert.Equal(t, 1, countResyncs(h.store.take()[2:]), "resync resumed with the new watch phase")
	})
}
