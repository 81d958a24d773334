package workqueue_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/informerlab/informerlab/workqueue"
)

// benchKeys returns n distinct keys in namespace/name form.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("default/pod-%d", i)
	}
	return keys
}

// BenchmarkAddGetDone: one goroutine, a fixed key space of 64 keys; one op is an
// Add, a Get and a Done.
func BenchmarkAddGetDone(b *testing.B) {
	keys := benchKeys(64)
	q := workqueue.New[string]()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(keys[i&63])
		item, _ := q.Get()
		q.Done(item)
		i++
	}
	q.ShutDown()
}

// BenchmarkPriorityQueueAddGetDone is BenchmarkAddGetDone on the priority queue.
func BenchmarkPriorityQueueAddGetDone(b *testing.B) {
	keys := benchKeys(64)
	q := workqueue.NewPriorityQueue[string](nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(keys[i&63])
		item, _ := q.Get()
		q.Done(item)
		i++
	}
	q.ShutDown()
}

// batch is how many distinct keys the Drain and AddAfter benchmarks use before
// they start over on a fresh queue, which keeps their memory bounded.
const batch = 1 << 16

// BenchmarkDrain: batches of distinct keys are queued (not timed), then the timed
// part is the given number of workers taking them all (Get, Done) while
// ShutDownWithDrain waits. One op is one item processed.
func BenchmarkDrain(b *testing.B) {
	keys := benchKeys(batch)
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for done := 0; done < b.N; done += batch {
				b.StopTimer()
				q := workqueue.New[string]()
				for _, key := range keys[:min(batch, b.N-done)] {
					q.Add(key)
				}
				b.StartTimer()

				var wg sync.WaitGroup
				for range workers {
					wg.Go(func() {
						for {
							item, shutdown := q.Get()
							if shutdown {
								return
							}
							q.Done(item)
						}
					})
				}
				q.ShutDownWithDrain()
				wg.Wait()
			}
		})
	}
}

// BenchmarkAddAfter: every op delays a key not yet waiting by an hour, so each op
// inserts into the waiting set while the waiting loop sleeps. After every batch
// keys, the benchmark starts over (not timed):
//   - steady: on the same queue, whose waiting set is emptied but keeps its memory,
//     as in a long-lived queue whose items came due;
//   - growing: on a fresh queue, so the cost includes growing the waiting set's map
//     and heap from nothing to batch entries.
func BenchmarkAddAfter(b *testing.B) {
	keys := benchKeys(batch)
	for _, mode := range []string{"steady", "growing"} {
		b.Run(mode, func(b *testing.B) {
			q := workqueue.NewDelaying[string]()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%batch == 0 && i > 0 {
					b.StopTimer()
					if mode == "steady" {
						workqueue.EmptyWaiting(q)
					} else {
						q.ShutDown()
						q = workqueue.NewDelaying[string]()
					}
					b.StartTimer()
				}
				q.AddAfter(keys[i%batch], time.Hour)
			}
			q.ShutDown()
		})
	}
}

// BenchmarkAddRateLimitedForget: a failure then a success for one of 1024 keys: the
// limiter's When and Forget, and AddAfter of a key that already waits (the
// exponential base is an hour, so nothing becomes ready).
func BenchmarkAddRateLimitedForget(b *testing.B) {
	keys := benchKeys(1024)
	q := workqueue.NewRateLimiting(workqueue.NewItemExponentialFailureRateLimiter[string](time.Hour, 2*time.Hour))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		key := keys[i&1023]
		q.AddRateLimited(key)
		q.Forget(key)
		i++
	}
	q.ShutDown()
}
