package workqueue_test

import (
	"math/rand/v2"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

// requireInvariants fails the test at once if q's internal invariants are broken.
func requireInvariants[T comparable](t *testing.T, q workqueue.Interface[T]) {
	t.Helper()
	require.NoError(t, workqueue.CheckInvariants(q))
}

// getAsync calls q.Get on a new goroutine and delivers its result on the returned
// channel, so a test can observe whether Get is still blocked.
func getAsync[T comparable](q workqueue.Interface[T]) <-chan T {
	got := make(chan T, 1)
	go func() {
		item, shutdown := q.Get()
		if !shutdown {
			got <- item
		}
		close(got)
	}()
	return got
}

// TestQueueIsFair: items come out in the order they were first added.
// Diagram: step 8. client-go: Typed.Get (fair promise in util/workqueue/doc.go).
func TestQueueIsFair(t *testing.T) {
	q := workqueue.New[string]()

	for _, key := range []string{"ns/c", "ns/a", "ns/b"} {
		q.Add(key)
		requireInvariants(t, q)
	}

	var got []string
	for q.Len() > 0 {
		key, shutdown := q.Get()
		require.False(t, shutdown)
		got = append(got, key)
		q.Done(key)
		requireInvariants(t, q)
	}
	assert.Equal(t, []string{"ns/c", "ns/a", "ns/b"}, got)
}

// TestQueueCollapsesAddsOfAWaitingItem: adding a key that is already waiting does
// nothing; it keeps its place and is handed out once.
// Diagram: step 7. client-go: Typed.Add (stingy promise).
func TestQueueCollapsesAddsOfAWaitingItem(t *testing.T) {
	q := workqueue.New[string]()

	q.Add("ns/a")
	q.Add("ns/b")
	q.Add("ns/a")
	q.Add("ns/a")
	requireInvariants(t, q)

	t.Logf("Add ns/a, ns/b, ns/a, ns/a: Len() is %d", q.Len())
	assert.Equal(t, 2, q.Len())
	first, _ := q.Get()
	second, _ := q.Get()
	t.Logf("Get, Get: %s, then %s; ns/a kept the place of its first add, and nothing is left: Len() is %d", first, second, q.Len())
	assert.Equal(t, []string{"ns/a", "ns/b"}, []string{first, second})
	assert.Equal(t, 0, q.Len())
	requireInvariants(t, q)
}

// TestQueueNeverHandsOneItemToTwoWorkers: while a key is being processed, adding it
// again does not let a second worker have it; the second worker gets it only after
// Done.
// Diagram: step 8. client-go: Typed.Add / Typed.Done (stingy promise).
func TestQueueNeverHandsOneItemToTwoWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[string]()
		q.Add("ns/a")
		first, _ := q.Get()
		t.Logf("worker 1 takes %s; the object changes and %s is added again", first, first)

		q.Add("ns/a") // the object changed while the first worker reconciles it
		second := getAsync(q)
		synctest.Wait()

		require.Equal(t, "ns/a", first)
		assert.Empty(t, second, "a second worker got ns/a while the first still processes it")
		t.Logf("   worker 2 waits in Get: nothing handed out, Len() is %d", q.Len())
		assert.Equal(t, 0, q.Len(), "an item added while processing is not counted until Done")
		requireInvariants(t, q)

		q.Done(first)
		synctest.Wait()

		assert.Equal(t, "ns/a", <-second)
		t.Log("worker 1 calls Done: only now does worker 2 get ns/a")
		requireInvariants(t, q)
		q.ShutDown()
	})
}

// TestQueueAddWhileProcessingRequeuesAfterDone: an add that arrives while the key is
// processed is not lost: Done puts the key back at the end of the queue.
// Diagram: steps 7, 8. client-go: Typed.Done.
func TestQueueAddWhileProcessingRequeuesAfterDone(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("ns/a")
	q.Add("ns/b")
	a, _ := q.Get()

	q.Add("ns/a")
	requireInvariants(t, q)
	require.Equal(t, 1, q.Len())
	t.Logf("a worker takes %s; %s is added again while it works: Len() is %d (ns/b only)", a, a, q.Len())
	q.Done(a)
	requireInvariants(t, q)

	assert.Equal(t, 2, q.Len())
	next, _ := q.Get()
	t.Logf("   after Done, Len() is 2: the next Get gives %s, the re-added ns/a goes to the back", next)
	assert.Equal(t, "ns/b", next, "the re-added key goes to the back")
	last, _ := q.Get()
	assert.Equal(t, "ns/a", last)
}

// TestQueueDoneWithoutAddForgetsTheItem: once processed and not re-added, a key is
// forgotten, and adding it later queues it afresh.
// Diagram: step 8. client-go: Typed.Done.
func TestQueueDoneWithoutAddForgetsTheItem(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("ns/a")
	a, _ := q.Get()

	q.Done(a)

	assert.Equal(t, 0, q.Len())
	requireInvariants(t, q)
	q.Add("ns/a")
	assert.Equal(t, 1, q.Len())
	requireInvariants(t, q)
}

// TestQueueIgnoresDoneForAnItemNotBeingProcessed: a stray Done (twice, or for a key
// still waiting) changes nothing; in particular it never queues a key twice.
// Diagram: step 8. client-go: Typed.Done re-pushes a dirty item here.
func TestQueueIgnoresDoneForAnItemNotBeingProcessed(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("ns/a")
	a, _ := q.Get()
	q.Done(a)
	q.Done(a) // twice
	q.Add("ns/a")

	q.Done("ns/a") // still waiting, never handed out
	q.Done("ns/never-added")
	t.Logf("Done twice, Done for a waiting key and for a key never added: Len() is %d, ns/a queued once", q.Len())

	assert.Equal(t, 1, q.Len())
	requireInvariants(t, q)
}

// TestQueueGetHandsOutWaitingItemsAfterShutDown: ShutDown stops new adds, but Get
// still returns what was waiting before reporting shutdown.
// Diagram: step 8. client-go: Typed.ShutDown.
func TestQueueGetHandsOutWaitingItemsAfterShutDown(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("ns/a")
	q.Add("ns/b")

	q.ShutDown()
	q.Add("ns/c")
	t.Log("ns/a and ns/b wait; ShutDown; then ns/c is added")

	assert.True(t, q.ShuttingDown())
	a, shutdown := q.Get()
	assert.Equal(t, "ns/a", a)
	assert.False(t, shutdown)
	b, shutdown := q.Get()
	assert.Equal(t, "ns/b", b)
	assert.False(t, shutdown)
	zero, shutdown := q.Get()
	t.Logf("   Get hands out %s and %s, then reports shutdown=%v: ns/c was ignored", a, b, shutdown)
	assert.Equal(t, "", zero)
	assert.True(t, shutdown, "ns/c was added after ShutDown and must be ignored")
	requireInvariants(t, q)
}

// TestQueueShutDownWakesBlockedGet: workers blocked in Get return shutdown == true.
// Diagram: step 8. client-go: Typed.ShutDown.
func TestQueueShutDownWakesBlockedGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[string]()
		results := make(chan bool, 3)
		for range 3 {
			go func() {
				_, shutdown := q.Get()
				results <- shutdown
			}()
		}
		synctest.Wait()
		require.Empty(t, results)

		q.ShutDown()
		synctest.Wait()

		require.Len(t, results, 3)
		for range 3 {
			assert.True(t, <-results)
		}
	})
}

// TestShutDownWithDrainWaitsForQueuedAndInFlightItems: drain returns only once
// nothing is waiting and nothing is being processed. Upstream returns as soon as
// nothing is in flight, even with keys still queued.
// Diagram: step 8. client-go: Typed.ShutDownWithDrain.
func TestShutDownWithDrainWaitsForQueuedAndInFlightItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[string]()
		q.Add("ns/a")
		q.Add("ns/b")
		a, _ := q.Get()
		drained := make(chan struct{})

		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		requireOpen(t, drained, "ns/a in flight and ns/b queued")
		t.Log("ns/a in flight, ns/b queued: ShutDownWithDrain waits")
		q.Done(a)
		synctest.Wait()

		requireOpen(t, drained, "ns/b queued (upstream returns here)")
		t.Log("   ns/a Done, ns/b still queued: it still waits (client-go's would return here)")
		b, shutdown := q.Get()
		require.False(t, shutdown)
		require.Equal(t, "ns/b", b)
		synctest.Wait()
		requireOpen(t, drained, "ns/b in flight")

		q.Done(b)
		<-drained
		t.Log("   ns/b taken and Done: nothing queued, nothing in flight; ShutDownWithDrain returns")

		_, shutdown = q.Get()
		assert.True(t, shutdown)
		requireInvariants(t, q)
	})
}

// TestShutDownWithDrainWakesEveryWaiter: several goroutines may drain at once; the
// last Done releases all of them.
// Diagram: step 8. client-go: Typed.ShutDownWithDrain (Signal instead of Broadcast upstream).
func TestShutDownWithDrainWakesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[string]()
		q.Add("ns/a")
		a, _ := q.Get()
		drained := make(chan struct{}, 3)
		for range 3 {
			go func() {
				q.ShutDownWithDrain()
				drained <- struct{}{}
			}()
		}
		synctest.Wait()
		require.Empty(t, drained)

		q.Done(a)
		synctest.Wait()

		assert.Len(t, drained, 3)
	})
}

// TestShutDownCancelsShutDownWithDrain: a plain ShutDown ends a drain wait at once,
// even with work outstanding.
// Diagram: step 8. client-go: Typed.ShutDown.
func TestShutDownCancelsShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[string]()
		q.Add("ns/a")
		q.Add("ns/b")
		_, _ = q.Get()
		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()

		q.ShutDown()

		<-drained
		assert.Equal(t, 1, q.Len(), "ns/b is still queued: drain was cancelled, not completed")
	})
}

// TestShutDownWithDrainOnAnIdleQueueReturnsAtOnce: nothing to wait for, no wait.
// Diagram: step 8. client-go: Typed.ShutDownWithDrain.
func TestShutDownWithDrainOnAnIdleQueueReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[string]()
		q.Add("ns/a")
		a, _ := q.Get()
		q.Done(a)

		q.ShutDownWithDrain()

		assert.True(t, q.ShuttingDown())
		requireInvariants(t, q)
	})
}

// TestQueueMatchesAModelUnderRandomOperations drives the queue with a random
// sequence of Add, Get, Done and checks it against a tiny model, and the queue's
// invariants, after every operation.
// Diagram: steps 7, 8. client-go: Typed (queue.go).
func TestQueueMatchesAModelUnderRandomOperations(t *testing.T) {
	q := workqueue.New[int]()
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		order      []int // model: waiting items in order
		waiting    = map[int]bool{}
		processing = map[int]bool{}
		dirtyAgain = map[int]bool{} // added while processing
	)

	for step := range 5000 {
		item := rng.IntN(8)
		switch op := rng.IntN(3); {
		case op == 0:
			q.Add(item)
			switch {
			case processing[item]:
				dirtyAgain[item] = true
			case !waiting[item]:
				waiting[item] = true
				order = append(order, item)
			}
		case op == 1 && len(order) > 0:
			got, shutdown := q.Get()
			require.False(t, shutdown)
			require.Equal(t, order[0], got, "step %d", step)
			order = order[1:]
			delete(waiting, got)
			processing[got] = true
		case op == 2:
			q.Done(item)
			if processing[item] {
				delete(processing, item)
				if dirtyAgain[item] {
					delete(dirtyAgain, item)
					waiting[item] = true
					order = append(order, item)
				}
			}
		}
		require.NoError(t, workqueue.CheckInvariants(q), "step %d", step)
		require.Equal(t, len(order), q.Len(), "step %d", step)
	}
}

// TestQueueKeepsOrderWhileItsBufferGrowsAndShrinks: a thousand keys in, half out,
// a thousand more in, all out: strictly first in, first out throughout.
// Diagram: step 8. client-go: Typed's default Queue (a slice FIFO).
func TestQueueKeepsOrderWhileItsBufferGrowsAndShrinks(t *testing.T) {
	q := workqueue.New[int]()
	next, want := 0, 0
	add := func(n int) {
		for range n {
			q.Add(next)
			next++
		}
		requireInvariants(t, q)
	}
	take := func(n int) {
		for range n {
			got, _ := q.Get()
			require.Equal(t, want, got)
			q.Done(got)
			want++
		}
		requireInvariants(t, q)
	}

	add(1000)
	take(500)
	add(1000)
	take(1500)

	assert.Equal(t, 0, q.Len())
	assert.Equal(t, 2000, want)
}
