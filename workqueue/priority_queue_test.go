package workqueue_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

func prio(p int) *int { return &p }

// drainReady takes every ready item off q, calling Done for each, and returns them
// with their priorities, in the order Get handed them out.
func drainReady(t *testing.T, q workqueue.PriorityQueue[string]) []string {
	t.Helper()
	var got []string
	for q.Len() > 0 {
		item, _, shutdown := q.GetWithPriority()
		require.False(t, shutdown)
		got = append(got, item)
		q.Done(item)
		requireInvariants(t, q)
	}
	return got
}

// TestPriorityQueueHandsOutHighestPriorityFirstThenOldestFirst.
// Diagram: step 8. client-go: controller-runtime priorityqueue (less: priority, then AddedCounter).
func TestPriorityQueueHandsOutHighestPriorityFirstThenOldestFirst(t *testing.T) {
	q := workqueue.NewPriorityQueue[string](nil)

	q.AddWithOpts(workqueue.AddOpts{Priority: prio(-100)}, "ns/resync-1", "ns/resync-2")
	q.Add("ns/changed-1") // nil priority is 0
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(10)}, "ns/urgent")
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(0)}, "ns/changed-2")
	requireInvariants(t, q)

	item, priority, _ := q.GetWithPriority()
	assert.Equal(t, "ns/urgent", item)
	assert.Equal(t, 10, priority)
	t.Log("added: ns/resync-1, ns/resync-2 at -100; ns/changed-1 at 0; ns/urgent at 10; ns/changed-2 at 0")
	t.Logf("   first out: %s (priority %d)", item, priority)
	q.Done(item)
	rest := drainReady(t, q)
	t.Logf("   then: %v: by priority, then oldest first", rest)
	assert.Equal(t, []string{"ns/changed-1", "ns/changed-2", "ns/resync-1", "ns/resync-2"}, rest)
	q.ShutDown()
}

// TestPriorityQueueMergesAddsKeepingTheHigherPriority: adding a queued item again
// raises its priority, never lowers it; a raised item goes to the back of its new
// level.
// Diagram: step 7. client-go: controller-runtime priorityqueue.AddWithOpts.
func TestPriorityQueueMergesAddsKeepingTheHigherPriority(t *testing.T) {
	q := workqueue.NewPriorityQueue[string](nil)
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(10)}, "ns/a")
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(-100)}, "ns/b")
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(10)}, "ns/c")

	q.AddWithOpts(workqueue.AddOpts{Priority: prio(10)}, "ns/b")   // raised: back of level 10
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(-500)}, "ns/a") // never lowered
	requireInvariants(t, q)

	assert.Equal(t, 3, q.Len())
	got := drainReady(t, q)
	t.Log("added a@10, b@-100, c@10; then b again at 10 (raised) and a again at -500 (never lowered)")
	t.Logf("   Len() was 3; the order out: %v", got)
	assert.Equal(t, []string{"ns/a", "ns/c", "ns/b"}, got)
	q.ShutDown()
}

// TestPriorityQueueKeepsTheEarlierReadyTime: of two delayed adds the earlier wins,
// and a ready item stays ready when added again with a delay.
// Diagram: step 7. client-go: controller-runtime priorityqueue.AddWithOpts (min of durations).
func TestPriorityQueueKeepsTheEarlierReadyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue[string](nil)
		start := time.Now()

		q.AddAfter("ns/a", 5*time.Second)
		q.AddAfter("ns/a", 2*time.Second)
		q.AddAfter("ns/a", 9*time.Second)
		q.Add("ns/ready")
		q.AddAfter("ns/ready", time.Hour)
		requireInvariants(t, q)

		assert.Equal(t, 1, q.Len(), "ns/a waits; ns/ready stays ready")
		assert.Equal(t, 1, workqueue.WaitingLen[string](q))
		assert.Equal(t, []string{"ns/ready"}, drainReady(t, q))
		a, _ := q.Get()
		assert.Equal(t, "ns/a", a)
		assert.Equal(t, 2*time.Second, time.Since(start))
		q.Done(a)
		time.Sleep(time.Hour)
		assert.Equal(t, 0, q.Len(), "each item is handed out once")
		q.ShutDown()
	})
}

// TestPriorityQueueAddNowCancelsADelay: a plain add of a waiting item makes it
// ready at once.
// Diagram: step 7. client-go: controller-runtime priorityqueue.AddWithOpts.
func TestPriorityQueueAddNowCancelsADelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue[string](nil)
		q.AddAfter("ns/a", time.Hour)

		q.Add("ns/a")

		assert.Equal(t, 1, q.Len())
		assert.Equal(t, 0, workqueue.WaitingLen[string](q))
		requireInvariants(t, q)
		q.ShutDown()
	})
}

// TestPriorityQueueDelayedItemJoinsItsLevelWhenItBecomesReady: an item whose delay
// passes goes behind items of its priority that became ready before it.
// Diagram: step 8. client-go: controller-runtime priorityqueue (fresh AddedCounter when ready).
func TestPriorityQueueDelayedItemJoinsItsLevelWhenItBecomesReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue[string](nil)

		q.AddAfter("ns/delayed", time.Second) // added first, ready at 1s
		time.Sleep(500 * time.Millisecond)
		q.Add("ns/early")
		time.Sleep(time.Second)
		q.Add("ns/late")
		q.AddWithOpts(workqueue.AddOpts{Priority: prio(1)}, "ns/high")
		requireInvariants(t, q)

		assert.Equal(t, []string{"ns/high", "ns/early", "ns/delayed", "ns/late"}, drainReady(t, q))
		q.ShutDown()
	})
}

// TestPriorityQueueLocksItemsWhileProcessing: an item added again while a worker
// processes it is not handed to another worker, however high its priority; other
// items are; it comes out after Done.
// Diagram: step 8. client-go: controller-runtime priorityqueue (locked set).
func TestPriorityQueueLocksItemsWhileProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue[string](nil)
		q.Add("ns/a")
		a, _ := q.Get()

		q.AddWithOpts(workqueue.AddOpts{Priority: prio(100)}, "ns/a")
		second := getAsync[string](q)
		synctest.Wait()
		assert.Empty(t, second, "ns/a was handed to a second worker")
		t.Logf("a worker holds ns/a; ns/a is added again at priority 100: a second worker waits, Len() is %d", q.Len())
		assert.Equal(t, 0, q.Len(), "a parked item is not ready")
		requireInvariants(t, q)
		q.Add("ns/b")
		assert.Equal(t, "ns/b", <-second)
		t.Log("   ns/b is added: the second worker gets ns/b")

		q.Done(a)

		item, priority, _ := q.GetWithPriority()
		assert.Equal(t, "ns/a", item)
		assert.Equal(t, 100, priority)
		t.Logf("   after Done, ns/a comes out at priority %d", priority)
		requireInvariants(t, q)
		q.ShutDown()
	})
}

// TestPriorityQueueRateLimitedTakesTheShorterDelay: RateLimited asks the limiter
// every time (counting a failure) and uses the shorter of its delay and After.
// Diagram: step 7. client-go: controller-runtime priorityqueue.AddWithOpts (RateLimited).
func TestPriorityQueueRateLimitedTakesTheShorterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue(workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Hour))
		for _, tc := range []struct {
			opts workqueue.AddOpts
			want time.Duration
		}{
			{workqueue.AddOpts{RateLimited: true}, time.Second},                                           // limiter alone: 1s
			{workqueue.AddOpts{RateLimited: true, After: 100 * time.Millisecond}, 100 * time.Millisecond}, // After shorter than 2s
			{workqueue.AddOpts{RateLimited: true, After: 10 * time.Second}, 4 * time.Second},              // limiter shorter than After
		} {
			start := time.Now()

			q.AddWithOpts(tc.opts, "ns/a")
			item, _ := q.Get()
			q.Done(item)

			assert.Equal(t, tc.want, time.Since(start), "%+v", tc.opts)
		}
		assert.Equal(t, 3, q.NumRequeues("ns/a"))
		q.Forget("ns/a")
		assert.Equal(t, 0, q.NumRequeues("ns/a"))
		q.ShutDown()
	})
}

// TestPriorityQueueStarvesLowPriorityItemsUnderSteadyHighPriorityLoad pins the
// documented risk: with no aging, a low-priority item waits as long as higher
// priority items keep coming.
// Diagram: step 8. client-go: controller-runtime priorityqueue.
func TestPriorityQueueStarvesLowPriorityItemsUnderSteadyHighPriorityLoad(t *testing.T) {
	q := workqueue.NewPriorityQueue[int](nil)
	q.AddWithOpts(workqueue.AddOpts{Priority: prio(-100)}, -1)
	q.Add(0)
	var handedOut []int

	for next := 1; next <= 1000; next++ {
		item, _ := q.Get()
		handedOut = append(handedOut, item)
		q.Add(next) // each reconcile produces new normal-priority work
		q.Done(item)
	}
	q.ShutDown()
	for q.Len() > 0 {
		item, _ := q.Get()
		handedOut = append(handedOut, item)
		q.Done(item)
	}

	assert.Len(t, handedOut, 1002)
	t.Logf("one item at -100, then 1,000 reconciles each adding new work at 0: the low-priority item came out at position %d of %d, after the load stopped", slices.Index(handedOut, -1)+1, len(handedOut))
	assert.Equal(t, -1, handedOut[1001], "the low-priority item came out only after the load stopped")
}

// TestPriorityQueueShutDownHandsOutReadyItemsAndDropsWaitingOnes: like every queue
// here (controller-runtime's reports shutdown at once); the waiting loop stops.
// Diagram: step 8. client-go: controller-runtime priorityqueue.ShutDown.
func TestPriorityQueueShutDownHandsOutReadyItemsAndDropsWaitingOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := bubbleGoroutines(t)
		q := workqueue.NewPriorityQueue[string](nil)
		q.Add("ns/ready")
		q.AddAfter("ns/waiting", time.Second)
		assert.Equal(t, before+1, bubbleGoroutines(t))

		q.ShutDown()
		q.Add("ns/after-shutdown")
		synctest.Wait() // ShutDown signals the waiting loop; let it exit

		assert.Equal(t, before, bubbleGoroutines(t))
		requireInvariants(t, q)
		item, shutdown := q.Get()
		assert.Equal(t, "ns/ready", item)
		assert.False(t, shutdown)
		time.Sleep(time.Hour)
		_, shutdown = q.Get()
		assert.True(t, shutdown)
	})
}

// TestPriorityQueueShutDownWithDrainWaitsForReadyAndInFlightItems: controller-runtime's
// ShutDownWithDrain is plain ShutDown; here it drains like the other queues.
// Diagram: step 8. client-go: Typed.ShutDownWithDrain.
func TestPriorityQueueShutDownWithDrainWaitsForReadyAndInFlightItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue[string](nil)
		q.Add("ns/a")
		q.Add("ns/b")
		a, _ := q.Get()
		q.Add("ns/a") // parked behind the worker
		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		requireOpen(t, drained, "ns/a in flight, ns/b ready, ns/a parked")

		q.Done(a)
		synctest.Wait()
		requireOpen(t, drained, "ns/b and ns/a ready")
		b, _ := q.Get()
		q.Done(b)
		synctest.Wait()
		requireOpen(t, drained, "ns/a ready")
		again, _ := q.Get()
		synctest.Wait()
		requireOpen(t, drained, "ns/a in flight")
		q.Done(again)

		<-drained
		assert.Equal(t, []string{"ns/b", "ns/a"}, []string{b, again})
		requireInvariants(t, q)
	})
}

// requireOpen fails the test if ch is already closed: what it waits for must not
// have happened yet, because of what is still outstanding.
func requireOpen(t *testing.T, ch <-chan struct{}, outstanding string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("returned early, with %s", outstanding)
	default:
	}
}

// TestPriorityQueueKeepsItsInvariantsUnderRandomOperations drives the queue with
// random adds (priorities, delays, rate limiting), gets, dones and the passage of
// time, checking the invariants after every step and that no item is handed out
// twice.
// Diagram: steps 7, 8. client-go: controller-runtime priorityqueue.
func TestPriorityQueueKeepsItsInvariantsUnderRandomOperations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewPriorityQueue(workqueue.NewItemExponentialFailureRateLimiter[int](time.Millisecond, 50*time.Millisecond))
		rng := rand.New(rand.NewPCG(3, 4))
		inFlight := map[int]bool{}

		for step := range 5000 {
			item := rng.IntN(10)
			switch rng.IntN(5) {
			case 0:
				q.Add(item)
			case 1:
				q.AddWithOpts(workqueue.AddOpts{
					After:       time.Duration(rng.IntN(20)) * time.Millisecond,
					RateLimited: rng.IntN(2) == 0,
					Priority:    prio(rng.IntN(3) - 1),
				}, item, rng.IntN(10))
			case 2:
				if q.Len() > 0 {
					got, _, shutdown := q.GetWithPriority()
					require.False(t, shutdown)
					require.False(t, inFlight[got], "step %d: %d handed out twice", step, got)
					inFlight[got] = true
				}
			case 3:
				q.Done(item)
				delete(inFlight, item)
			case 4:
				time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
				synctest.Wait()
			}
			require.NoError(t, workqueue.CheckInvariants[int](q), "step %d", step)
		}
		q.ShutDown()
	})
}

// TestPriorityQueueSteadyStateAllocatesNothing: once warm, the priority queue
// reuses the entries of items handed out, so Add (with a priority), Get and
// Done, and an AddAfter that comes due, allocate nothing. (A variadic call
// through the interface makes the caller allocate its argument slice, so the
// test passes slices of keys it already holds.)
// Diagram: steps 7, 8. client-go: controller-runtime's priorityqueue allocates a new item per add.
func TestPriorityQueueSteadyStateAllocatesNothing(t *testing.T) {
	keys := []string{"ns/a", "ns/b", "ns/c", "ns/d"}
	high := 5
	q := workqueue.NewPriorityQueue[string](nil)
	defer q.ShutDown()
	i := 0

	ready := testing.AllocsPerRun(1000, func() {
		j := i % len(keys)
		q.AddWithOpts(workqueue.AddOpts{Priority: &high}, keys[j:j+1]...)
		q.Add(keys[(i+1)%len(keys)])
		for range 2 {
			item, _ := q.Get()
			q.Done(item)
		}
		i++
	})
	delayed := testing.AllocsPerRun(100, func() {
		q.AddAfter(keys[i%len(keys)], time.Nanosecond)
		item, _ := q.Get()
		q.Done(item)
		i++
	})

	t.Logf("allocations per round: Add with priority, Add, 2 x Get+Done: %v; AddAfter that comes due, Get, Done: %v", ready, delayed)
	assert.Zero(t, ready)
	assert.Zero(t, delayed)
	assert.Zero(t, q.Len())
}
