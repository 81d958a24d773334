package workqueue_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

// TestAddAfterHandsOutItemsAtTheirExactReadyTime: delayed items arrive in ready-time
// order, each exactly when its delay has passed, not one tick later.
// Diagram: step 7. client-go: delayingType.AddAfter / waitingLoop.
func TestAddAfterHandsOutItemsAtTheirExactReadyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()
		start := time.Now()

		q.AddAfter("ns/slow", 3*time.Second)
		q.AddAfter("ns/fast", time.Second)
		q.AddAfter("ns/middle", 2*time.Second)
		requireInvariants(t, q)

		for _, want := range []struct {
			key string
			at  time.Duration
		}{{"ns/fast", time.Second}, {"ns/middle", 2 * time.Second}, {"ns/slow", 3 * time.Second}} {
			key, shutdown := q.Get()
			require.False(t, shutdown)
			assert.Equal(t, want.key, key)
			assert.Equal(t, want.at, time.Since(start), "%s handed out at the wrong time", key)
			q.Done(key)
			requireInvariants(t, q)
		}
		q.ShutDown()
	})
}

// TestAddAfterKeepsTheEarlierReadyTime: a second AddAfter of a waiting item can
// bring it forward but never push it back, and the item is handed out once.
// Diagram: step 7. client-go: waitingLoop's insert (keeps the earlier readyAt).
func TestAddAfterKeepsTheEarlierReadyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()
		start := time.Now()

		q.AddAfter("ns/a", 5*time.Second)
		q.AddAfter("ns/a", 10*time.Second) // later: ignored
		q.AddAfter("ns/b", 10*time.Second)
		q.AddAfter("ns/b", 2*time.Second) // earlier: wins
		require.Equal(t, 2, workqueue.WaitingLen(q))
		t.Log("AddAfter(ns/a, 5s), AddAfter(ns/a, 10s), AddAfter(ns/b, 10s), AddAfter(ns/b, 2s)")
		requireInvariants(t, q)

		b, _ := q.Get()
		assert.Equal(t, "ns/b", b)
		assert.Equal(t, 2*time.Second, time.Since(start))
		t.Logf("   Get: %s after %v", b, time.Since(start))
		a, _ := q.Get()
		assert.Equal(t, "ns/a", a)
		assert.Equal(t, 5*time.Second, time.Since(start))
		t.Logf("   Get: %s after %v; each kept its earlier ready time", a, time.Since(start))
		time.Sleep(time.Minute)
		assert.Equal(t, 0, q.Len(), "each item is handed out once")
		q.ShutDown()
	})
}

// TestAddAfterWithNoDelayAddsAtOnce: zero and negative delays are plain adds.
// Diagram: step 7. client-go: delayingType.AddAfter.
func TestAddAfterWithNoDelayAddsAtOnce(t *testing.T) {
	q := workqueue.NewDelaying[string]()

	q.AddAfter("ns/a", 0)
	q.AddAfter("ns/b", -time.Second)

	assert.Equal(t, 2, q.Len())
	assert.Equal(t, 0, workqueue.WaitingLen(q))
	q.ShutDown()
}

// TestAddAfterCollapsesWithAQueuedItem: when a delayed item's time comes it is
// added like any other add, so it collapses with the same key already queued.
// Diagram: step 7. client-go: waitingLoop calls Add.
func TestAddAfterCollapsesWithAQueuedItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()
		q.Add("ns/a")

		q.AddAfter("ns/a", time.Second)
		time.Sleep(time.Second)
		synctest.Wait()

		assert.Equal(t, 1, q.Len())
		assert.Equal(t, 0, workqueue.WaitingLen(q))
		requireInvariants(t, q)
		q.ShutDown()
	})
}

// TestWaitingLoopHasNoHeartbeat: while an item waits an hour, the waiting loop
// sleeps the whole hour and wakes exactly once, when the item is due. Upstream wakes
// every 10 seconds as well, just in case.
// Diagram: step 7. client-go: waitingLoop (maxWait heartbeat).
func TestWaitingLoopHasNoHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()
		start := time.Now()

		q.AddAfter("ns/a", time.Hour)
		time.Sleep(time.Hour - time.Nanosecond)
		synctest.Wait()

		assert.Equal(t, int64(0), workqueue.WaitingLoopWakeups(q))
		t.Logf("AddAfter(ns/a, 1h); just before the hour is up the waiting loop has woken %d times", workqueue.WaitingLoopWakeups(q))
		assert.Equal(t, 0, q.Len())
		key, _ := q.Get()
		assert.Equal(t, "ns/a", key)
		assert.Equal(t, time.Hour, time.Since(start))
		assert.Equal(t, int64(1), workqueue.WaitingLoopWakeups(q))
		t.Logf("   Get returns %s after %v; the loop woke %d time in all (client-go's also wakes every 10s)", key, time.Since(start), workqueue.WaitingLoopWakeups(q))
		q.ShutDown()
	})
}

// TestWaitingLoopIsKickedByAnEarlierItem: an item due sooner than everything else
// wakes the loop once to shorten its sleep; a later item does not wake it at all.
// Diagram: step 7. client-go: waitingLoop's waitingForAddCh.
func TestWaitingLoopIsKickedByAnEarlierItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()
		start := time.Now()
		q.AddAfter("ns/a", time.Hour)
		synctest.Wait()

		q.AddAfter("ns/later", 2*time.Hour)
		synctest.Wait()
		assert.Equal(t, int64(0), workqueue.WaitingLoopWakeups(q), "a later item must not wake the loop")
		q.AddAfter("ns/sooner", time.Minute)
		synctest.Wait()
		assert.Equal(t, int64(1), workqueue.WaitingLoopWakeups(q))

		key, _ := q.Get()
		assert.Equal(t, "ns/sooner", key)
		assert.Equal(t, time.Minute, time.Since(start))
		q.ShutDown()
	})
}

// TestDelayingQueueStartsItsGoroutineLazilyAndShutDownStopsIt: building the queue
// starts nothing, the first delayed add starts the one waiting loop, and ShutDown
// returns only after that goroutine has exited.
// Diagram: step 7. client-go: NewTypedDelayingQueue starts waitingLoop at once.
func TestDelayingQueueStartsItsGoroutineLazilyAndShutDownStopsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := bubbleGoroutines(t)

		q := workqueue.NewDelaying[string]()
		q.AddAfter("ns/now", 0)
		assert.Equal(t, before, bubbleGoroutines(t), "no goroutine before the first delayed add")
		t.Logf("NewDelaying, AddAfter(0): %d new goroutines", bubbleGoroutines(t)-before)
		q.AddAfter("ns/later", time.Hour)
		assert.Equal(t, before+1, bubbleGoroutines(t))
		q.AddAfter("ns/later-still", 2*time.Hour)
		assert.Equal(t, before+1, bubbleGoroutines(t), "one loop, however many items wait")
		t.Logf("   two delayed adds: %d new goroutine, the waiting loop", bubbleGoroutines(t)-before)

		q.ShutDown()

		assert.Equal(t, before, bubbleGoroutines(t))
		t.Logf("   ShutDown returned; goroutines left over: %d", bubbleGoroutines(t)-before)
	})
}

// TestDelayingShutDownDropsWaitingItems: items still waiting at ShutDown are never
// added, however long one waits; adds after ShutDown are ignored and start nothing.
// Diagram: step 7. client-go: delayingType.ShutDown.
func TestDelayingShutDownDropsWaitingItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := bubbleGoroutines(t)
		q := workqueue.NewDelaying[string]()
		q.Add("ns/queued")
		q.AddAfter("ns/waiting", time.Second)

		q.ShutDown()
		q.AddAfter("ns/after-shutdown", time.Second)
		time.Sleep(time.Hour)

		assert.Equal(t, before, bubbleGoroutines(t))
		assert.Equal(t, 0, workqueue.WaitingLen(q))
		key, shutdown := q.Get()
		assert.Equal(t, "ns/queued", key)
		assert.False(t, shutdown)
		_, shutdown = q.Get()
		assert.True(t, shutdown)
		requireInvariants(t, q)
	})
}

// TestDelayingShutDownWithDrainWaitsForQueuedWorkButNotForWaitingItems: drain
// finishes what was queued or in flight; delayed items not yet due are dropped.
// Diagram: step 8. client-go: delayingType.ShutDownWithDrain.
func TestDelayingShutDownWithDrainWaitsForQueuedWorkButNotForWaitingItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()
		q.Add("ns/queued")
		q.AddAfter("ns/waiting", time.Hour)
		processed := make(chan string, 2)
		go func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					close(processed)
					return
				}
				processed <- key
				q.Done(key)
			}
		}()

		q.ShutDownWithDrain()

		var got []string
		for key := range processed {
			got = append(got, key)
		}
		assert.Equal(t, []string{"ns/queued"}, got)
		requireInvariants(t, q)
	})
}

// TestAddAfterNeverBlocks: ten thousand delayed adds with no worker running all
// return. Upstream hands each to the loop over a channel of capacity 1000, and a
// caller blocks once the loop falls that far behind.
// Diagram: step 7. client-go: delayingType.waitingForAddCh.
func TestAddAfterNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewDelaying[string]()

		for i := range 10_000 {
			q.AddAfter(fmt.Sprintf("ns/item-%d", i), time.Duration(10_000-i)*time.Millisecond)
		}

		assert.Equal(t, 10_000, workqueue.WaitingLen(q))
		t.Logf("10,000 AddAfter calls with no worker running all returned: %d items waiting", workqueue.WaitingLen(q))
		requireInvariants(t, q)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		assert.Equal(t, 10_000, q.Len())
		assert.Equal(t, 0, workqueue.WaitingLen(q))
		first, _ := q.Get()
		t.Logf("   10s later %d are ready; the first Get is %s, the shortest delay", q.Len()+1, first)
		assert.Equal(t, "ns/item-9999", first, "the shortest delay comes out first")
		q.ShutDown()
	})
}
