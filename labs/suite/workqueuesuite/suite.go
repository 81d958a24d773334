package workqueuesuite

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
	"github.com/informerlab/informerlab/workqueue"
)

// Impl is how an implementation plugs in.
type Impl struct {
	// NewQueue returns an empty delaying queue of strings. The suite
	// shuts every queue down before its behaviour ends, and creates it
	// inside a testing/synctest bubble when time matters.
	NewQueue func() workqueue.DelayingInterface[string]
}

// Reference is informerlab's own implementation: what
// workqueue/suite_test.go grades, and what labs/2-workqueue wires in under
// the labs_reference build tag.
var Reference = Impl{
	NewQueue: func() workqueue.DelayingInterface[string] { return workqueue.NewDelaying[string]() },
}

const (
	docKeys     = "docs/workqueue.md#why-the-queue-holds-keys-not-objects"
	docGetDone  = "docs/workqueue.md#get-done-forget-addratelimited-what-each-one-does"
	docShutDown = "docs/workqueue.md#shutting-down"
)

// Behaviours returns the graded behaviours of a delaying workqueue: fair
// (first in, first out), stingy (one item to one worker at a time),
// de-duplicating (adds collapse while an item waits) and delaying.
func Behaviours(impl Impl) []grade.Behaviour {
	// withQueue runs fn in a synctest bubble with a new queue, which it
	// shuts down afterwards.
	withQueue := func(t *testing.T, fn func(t *testing.T, q workqueue.DelayingInterface[string])) {
		t.Helper()
		grade.Bubble(t, func(t *testing.T) {
			q := impl.NewQueue()
			defer q.ShutDown()
			fn(t, q)
		})
	}
	return []grade.Behaviour{
		{
			Name: "GetHandsOutItemsInOrder",
			Want: "Get returns waiting items oldest first, and Len counts the waiting ones",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					for _, k := range []string{"a", "b", "c"} {
						q.Add(k)
					}
					assert.Equal(t, 3, q.Len())
					assert.Equal(t, []string{"a", "b", "c"}, getN(t, q, 3))
					assert.Equal(t, 0, q.Len())
				})
			},
		},
		{
			Name: "AddCollapsesWhileWaiting",
			Want: "adding an item that is already waiting does nothing: it keeps its place and is handed out once",
			Doc:  docKeys,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					for _, k := range []string{"a", "b", "a", "a", "c", "b"} {
						q.Add(k)
					}
					assert.Equal(t, 3, q.Len())
					assert.Equal(t, []string{"a", "b", "c"}, getN(t, q, 3))
				})
			},
		},
		{
			Name: "ItemInProcessIsNotHandedOutAgain",
			Want: "an item added again while a worker processes it is not handed to another worker before Done",
			Doc:  docKeys,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					getN(t, q, 1)
					q.Add("a")
					assert.Equal(t, 0, q.Len(), "an item being processed is not waiting")
					got := make(chan string, 1)
					done := grade.Go(t, func() {
						item, _ := q.Get()
						got <- item
					})
					synctest.Wait()
					select {
					case item := <-got:
						t.Fatalf("a second Get returned %q while a was being processed", item)
					default:
					}
					q.ShutDown()
					<-done
				})
			},
		},
		{
			Name: "AddWhileProcessingRequeuesAfterDone",
			Want: "an item added while it is processed is queued again when its worker calls Done, so the change is not lost",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					q.Add("b")
					assert.Equal(t, []string{"a"}, getN(t, q, 1))
					q.Add("a")
					q.Done("a")
					assert.Equal(t, 2, q.Len())
					assert.Equal(t, []string{"b", "a"}, getN(t, q, 2), "a goes to the back of the line")
				})
			},
		},
		{
			Name: "DoneRequeueWakesWaitingGet",
			Want: "when Done puts an item added during processing back in line, a Get blocked on the empty queue wakes and returns it",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					getN(t, q, 1)
					q.Add("a") // while processing: no item waits, so the next Get blocks
					got := make(chan string, 1)
					done := grade.Go(t, func() {
						item, _ := q.Get()
						got <- item
					})
					synctest.Wait()
					require.Empty(t, got, "a Get returned while a was still being processed")
					q.Done("a")
					synctest.Wait()
					select {
					case item := <-got:
						assert.Equal(t, "a", item)
					default:
						t.Error("Done put a back in line, but the Get blocked on the empty queue was not woken")
					}
					q.ShutDown()
					<-done
				})
			},
		},
		{
			Name: "DoneWithoutRequeueForgetsItem",
			Want: "after Done of an item nobody added again, the item is gone; a later Add queues it as new; a stray Done (of an item unknown, or waiting and not handed out) does nothing",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Done("never-added")
					assert.Equal(t, 0, q.Len())
					q.Add("a")
					getN(t, q, 1)
					q.Done("a")
					q.Done("a")
					assert.Equal(t, 0, q.Len())
					q.Add("a")
					assert.Equal(t, 1, q.Len())
					q.Done("a") // a waits; nobody got it
					assert.Equal(t, 1, q.Len(), "a stray Done of a waiting item queued it again")
					assert.Equal(t, []string{"a"}, getN(t, q, 1))
					assert.Equal(t, 0, q.Len(), "a is handed out once")
				})
			},
		},
		{
			Name: "GetBlocksUntilAnAdd",
			Want: "Get on an empty queue blocks until an item is added, then returns it",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					var got atomic.Value
					done := grade.Go(t, func() {
						item, shutdown := q.Get()
						assert.False(t, shutdown)
						got.Store(item)
					})
					synctest.Wait()
					require.Nil(t, got.Load(), "Get returned on an empty queue")
					q.Add("a")
					<-done
					assert.Equal(t, "a", got.Load())
				})
			},
		},
		{
			Name: "ShutDownWakesBlockedGets",
			Want: "ShutDown wakes every Get blocked on an empty queue, which returns shutdown=true",
			Doc:  docShutDown,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					var shut atomic.Int32
					var dones []<-chan struct{}
					for range 3 {
						dones = append(dones, grade.Go(t, func() {
							if _, shutdown := q.Get(); shutdown {
								shut.Add(1)
							}
						}))
					}
					synctest.Wait()
					assert.False(t, q.ShuttingDown())
					q.ShutDown()
					for _, d := range dones {
						<-d
					}
					assert.Equal(t, int32(3), shut.Load())
					assert.True(t, q.ShuttingDown())
				})
			},
		},
		{
			Name: "ShutDownHandsOutWaitingItemsThenStops",
			Want: "after ShutDown, items already waiting are still handed out, new Adds are ignored, then Get reports shutdown",
			Doc:  docShutDown,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					q.Add("b")
					q.ShutDown()
					q.Add("c")
					assert.Equal(t, []string{"a", "b"}, getN(t, q, 2))
					_, shutdown := q.Get()
					assert.True(t, shutdown, "Get after the waiting items")
				})
			},
		},
		{
			Name: "ShutDownWithDrainWaitsForWork",
			Want: "ShutDownWithDrain shuts the queue down, then returns only when nothing is waiting (queued items too) and every handed-out item is Done",
			Doc:  docShutDown,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					q.Add("b")
					getN(t, q, 1)
					var drained atomic.Bool
					done := grade.Go(t, func() {
						q.ShutDownWithDrain()
						drained.Store(true)
					})
					synctest.Wait()
					require.False(t, drained.Load(), "returned with a in process and b waiting")
					require.True(t, q.ShuttingDown(), "ShutDownWithDrain shuts the queue down first")
					q.Done("a")
					synctest.Wait()
					require.False(t, drained.Load(), "returned with nothing in process but b still waiting: drain waits for queued items too")
					assert.Equal(t, []string{"b"}, getN(t, q, 1))
					synctest.Wait()
					require.False(t, drained.Load(), "returned with b in process")
					q.Done("b")
					<-done
					assert.True(t, drained.Load())
					_, shutdown := q.Get()
					assert.True(t, shutdown, "after the drain, Get reports shutdown")
				})
			},
		},
		{
			Name: "ShutDownCancelsADrain",
			Want: "a ShutDown while ShutDownWithDrain waits cancels the drain: ShutDownWithDrain returns at once, with work still in process",
			Doc:  docShutDown,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					getN(t, q, 1)
					var drained atomic.Bool
					done := grade.Go(t, func() {
						q.ShutDownWithDrain()
						drained.Store(true)
					})
					synctest.Wait()
					require.False(t, drained.Load(), "returned with a in process")
					q.ShutDown()
					synctest.Wait()
					if !drained.Load() {
						q.Done("a") // let a drain that ignored ShutDown end
						<-done
						t.Fatal("ShutDown did not cancel the drain: it still waited for a's Done")
					}
					<-done
				})
			},
		},
		{
			Name: "AddAfterWaitsTheDelay",
			Want: "AddAfter(item, d) makes item waiting only once d has passed; d <= 0 adds it at once",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.AddAfter("later", time.Second)
					q.AddAfter("now", 0)
					q.AddAfter("past", -time.Second)
					assert.Equal(t, 2, q.Len())
					assert.Equal(t, []string{"now", "past"}, getN(t, q, 2))
					assert.Equal(t, 0, LenAfter(q, time.Second-time.Millisecond), "1ms before the delay")
					assert.Equal(t, 1, LenAfter(q, time.Millisecond), "at the delay")
					assert.Equal(t, []string{"later"}, getN(t, q, 1))
				})
			},
		},
		{
			Name: "AddAfterKeepsEarlierTime",
			Want: "a second AddAfter of a delayed item can bring it forward but never push it back, and it is added once",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.AddAfter("a", 10*time.Second)
					q.AddAfter("a", 2*time.Second)
					q.AddAfter("a", 5*time.Second)
					assert.Equal(t, 1, LenAfter(q, 2*time.Second), "ready at the earliest time")
					getN(t, q, 1)
					q.Done("a")
					assert.Equal(t, 0, LenAfter(q, 20*time.Second), "the later AddAfters did not add it again")
				})
			},
		},
		{
			Name: "DelayedItemsComeOutInReadyOrder",
			Want: "items added with AddAfter become waiting in the order of their ready times, not of the calls",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.AddAfter("c", 3*time.Second)
					q.AddAfter("a", time.Second)
					q.AddAfter("b", 2*time.Second)
					require.Equal(t, 3, LenAfter(q, 3*time.Second))
					assert.Equal(t, []string{"a", "b", "c"}, getN(t, q, 3))
				})
			},
		},
		{
			Name: "DelayedItemCollapsesWithWaitingItem",
			Want: "a delayed item that comes due while the same item is waiting does not queue it twice",
			Doc:  docKeys,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.AddAfter("a", time.Second)
					q.Add("a")
					assert.Equal(t, 1, LenAfter(q, 2*time.Second))
				})
			},
		},
		{
			Name: "ShutDownDropsDelayedItems",
			Want: "items still waiting for their delay at ShutDown are dropped, and AddAfter after ShutDown does nothing",
			Doc:  docShutDown,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.AddAfter("a", time.Second)
					q.ShutDown()
					q.AddAfter("b", 0)
					assert.Equal(t, 0, LenAfter(q, 2*time.Second))
					_, shutdown := q.Get()
					assert.True(t, shutdown)
				})
			},
		},
		{
			Name: "ManyWorkersProcessEachItemOnce",
			Want: "with 4 producers and 4 workers at once, every item added is processed, and never by two workers at the same time",
			Doc:  docKeys,
			Test: func(t *testing.T) {
				q := impl.NewQueue()
				defer q.ShutDown()
				const producers, items = 4, 250
				var mu sync.Mutex
				inProcess := map[string]bool{}
				processed := map[string]int{}
				var workers []<-chan struct{}
				for range 4 {
					workers = append(workers, grade.Go(t, func() {
						for {
							item, shutdown := q.Get()
							if shutdown {
								return
							}
							mu.Lock()
							if inProcess[item] {
								t.Errorf("%s handed to two workers at once", item)
							}
							inProcess[item] = true
							mu.Unlock()
							runtime.Gosched() // the reconcile: give another worker a chance to collide
							mu.Lock()
							inProcess[item] = false
							processed[item]++
							mu.Unlock()
							q.Done(item)
						}
					}))
				}
				var producing []<-chan struct{}
				for p := range producers {
					producing = append(producing, grade.Go(t, func() {
						for i := range items {
							q.Add(fmt.Sprintf("item-%d", i%50))
							q.Add(fmt.Sprintf("p%d-%d", p, i))
						}
					}))
				}
				for _, d := range producing {
					<-d
				}
				shut := grade.Go(t, q.ShutDownWithDrain)
				select {
				case <-shut:
				case <-time.After(time.Minute):
					q.ShutDown()
					t.Fatal("ShutDownWithDrain did not return within a minute")
				}
				for _, d := range workers {
					<-d
				}
				var lost, twice []string
				for p := range producers {
					for i := range items {
						switch k := fmt.Sprintf("p%d-%d", p, i); {
						case processed[k] == 0:
							lost = append(lost, k)
						case processed[k] > 1:
							twice = append(twice, k)
						}
					}
				}
				for i := range 50 {
					if k := fmt.Sprintf("item-%d", i); processed[k] == 0 {
						lost = append(lost, k)
					}
				}
				assert.Empty(t, lost, "items added but never processed")
				assert.Empty(t, twice, "items added once but processed more than once")
			},
		},
		{
			Name: "AddAfterOfAnEarlierItemIsNotHeldBack",
			Want: "an AddAfter due sooner than every item already delayed comes out at its own time, not when the earlier-scheduled wait ends",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.AddAfter("late", 10*time.Second)
					world.Advance(time.Second) // whatever waits for "late" is now asleep
					q.AddAfter("soon", time.Second)
					require.Equal(t, 1, LenAfter(q, time.Second), "1s after AddAfter(soon, 1s), with late due 8s later")
					assert.Equal(t, []string{"soon"}, getN(t, q, 1))
					assert.Equal(t, 1, LenAfter(q, 8*time.Second), "late at its own time")
				})
			},
		},
		{
			Name: "AddAfterOfAWaitingItemAddsItAgainLater",
			Want: "AddAfter of an item already waiting in line still adds it when the delay ends: handed out and Done meanwhile, it comes back",
			Doc:  docGetDone,
			Test: func(t *testing.T) {
				withQueue(t, func(t *testing.T, q workqueue.DelayingInterface[string]) {
					q.Add("a")
					q.AddAfter("a", 2*time.Second)
					assert.Equal(t, 1, q.Len(), "a waits once")
					assert.Equal(t, []string{"a"}, getN(t, q, 1))
					q.Done("a")
					assert.Equal(t, 0, LenAfter(q, time.Second))
					assert.Equal(t, 1, LenAfter(q, time.Second), "the delayed add of a, 2s after it")
				})
			},
		},
		modelBehaviour(impl),
	}
}

// getN takes n items off q (which must have them waiting) and marks none
// of them Done.
func getN(t *testing.T, q workqueue.Interface[string], n int) []string {
	t.Helper()
	var items []string
	for range n {
		if q.Len() == 0 {
			t.Fatalf("expected %d items waiting, got %v and then none", n, items)
		}
		item, shutdown := q.Get()
		require.False(t, shutdown, "Get reported shutdown with items waiting")
		items = append(items, item)
	}
	return items
}

// LenAfter lets d pass on the bubble's fake clock, waits until every
// goroutine of the bubble is blocked (the queue has moved whatever came
// due), and returns q.Len(). Call it inside a synctest bubble.
func LenAfter(q workqueue.Interface[string], d time.Duration) int {
	world.Advance(d)
	return q.Len()
}
