package bench

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cgworkqueue "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/informerlab/informerlab/workqueue"
)

// The workqueue benchmarks (diagram steps 7-8) drive both queues through the
// same small interfaces, so one scenario body serves both implementations
// and each pays the same interface call per operation. Every scenario runs
// twice: queue=plain (the classic workqueue) and queue=priority (the
// priority queue, every item at the default priority).

// queue is the method set informerlab's workqueue.Interface and client-go's
// TypedInterface share.
type queue[T comparable] interface {
	Add(item T)
	Len() int
	Get() (item T, shutdown bool)
	Done(item T)
	ShutDown()
}

type delayingQueue[T comparable] interface {
	queue[T]
	AddAfter(item T, d time.Duration)
}

type rateLimitingQueue[T comparable] interface {
	delayingQueue[T]
	AddRateLimited(item T)
	Forget(item T)
	NumRequeues(item T) int
}

// queueImpl names an implementation of one kind of queue and builds its
// queues. Kind "plain" is the classic workqueue (informerlab's New,
// NewDelaying, NewRateLimiting against client-go's NewTyped,
// NewTypedDelayingQueue, NewTypedRateLimitingQueue). Kind "priority" is the
// priority queue, whose upstream is controller-runtime's priorityqueue
// (built on client-go's workqueue interfaces): it is reported as
// impl=clientgo so that benchstat pairs it with ours. Both priority queues
// run without metrics (controller-runtime's does when its name is empty).
type queueImpl struct {
	kind string
	name string
	// asyncAdd is true for a queue whose adds take effect later, on
	// another goroutine (controller-runtime's priority queue).
	asyncAdd     bool
	newQueue     func() queue[string]
	newDelaying  func() delayingQueue[int]
	newRateLimit func(base, maxDelay time.Duration) rateLimitingQueue[string]
}

// label is the sub-benchmark name of the implementation, ending in impl=.
func (q queueImpl) label() string { return "queue=" + q.kind + "/impl=" + q.name }

// defaultBase and defaultMax are the per-item backoff controller-runtime's
// priority queue uses by default; both priority queues get it outside the
// rate-limiting benchmark.
const (
	defaultBase = 5 * time.Millisecond
	defaultMax  = 1000 * time.Second
)

func oursPriority[T comparable](base, maxDelay time.Duration) workqueue.PriorityQueue[T] {
	return workqueue.NewPriorityQueue(workqueue.NewItemExponentialFailureRateLimiter[T](base, maxDelay))
}

func crPriority[T comparable](base, maxDelay time.Duration) priorityqueue.PriorityQueue[T] {
	return priorityqueue.New("", func(o *priorityqueue.Opts[T]) {
		o.RateLimiter = cgworkqueue.NewTypedItemExponentialFailureRateLimiter[T](base, maxDelay)
	})
}

var queueImpls = []queueImpl{
	{
		kind:        "plain",
		name:        "ours",
		newQueue:    func() queue[string] { return workqueue.New[string]() },
		newDelaying: func() delayingQueue[int] { return workqueue.NewDelaying[int]() },
		newRateLimit: func(base, maxDelay time.Duration) rateLimitingQueue[string] {
			return workqueue.NewRateLimiting(workqueue.NewItemExponentialFailureRateLimiter[string](base, maxDelay))
		},
	},
	{
		kind:        "plain",
		name:        "clientgo",
		newQueue:    func() queue[string] { return cgworkqueue.NewTyped[string]() },
		newDelaying: func() delayingQueue[int] { return cgworkqueue.NewTypedDelayingQueue[int]() },
		newRateLimit: func(base, maxDelay time.Duration) rateLimitingQueue[string] {
			return cgworkqueue.NewTypedRateLimitingQueue(cgworkqueue.NewTypedItemExponentialFailureRateLimiter[string](base, maxDelay))
		},
	},
	{
		kind:        "priority",
		name:        "ours",
		newQueue:    func() queue[string] { return oursPriority[string](defaultBase, defaultMax) },
		newDelaying: func() delayingQueue[int] { return oursPriority[int](defaultBase, defaultMax) },
		newRateLimit: func(base, maxDelay time.Duration) rateLimitingQueue[string] {
			return oursPriority[string](base, maxDelay)
		},
	},
	{
		kind:        "priority",
		name:        "clientgo",
		asyncAdd:    true,
		newQueue:    func() queue[string] { return crPriority[string](defaultBase, defaultMax) },
		newDelaying: func() delayingQueue[int] { return crPriority[int](defaultBase, defaultMax) },
		newRateLimit: func(base, maxDelay time.Duration) rateLimitingQueue[string] {
			return crPriority[string](base, maxDelay)
		},
	},
}

// queueKeys returns n distinct "namespace/name" keys.
func queueKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = Key(i)
	}
	return keys
}

// BenchmarkWorkqueueAddGetDone runs one goroutine through Get, Done and Add
// again over a fixed key space of 1,000 keys that all stay queued, so each
// operation moves the head key to the tail. Fairness is checked on every
// operation: keys come out in the order they went in.
func BenchmarkWorkqueueAddGetDone(b *testing.B) {
	const space = 1000
	keys := queueKeys(space)
	for _, impl := range queueImpls {
		b.Run(impl.label(), func(b *testing.B) {
			q := impl.newQueue()
			defer q.ShutDown()
			for _, k := range keys {
				q.Add(k)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				k, shutdown := q.Get()
				if shutdown || k != keys[i%space] {
					b.Fatalf("Get #%d = %q (shutdown %v), want %q", i, k, shutdown, keys[i%space])
				}
				q.Done(k)
				q.Add(k)
			}
			b.StopTimer()
			eventually(b, 10*time.Second, "every key queued again", func() bool { return q.Len() == space })
		})
	}
}

// BenchmarkWorkqueueDrain measures a controller's shape: one producer adds
// 100,000 distinct keys while 1, 4 or 16 workers Get, reconcile and Done
// them. The reconcile is a no-op or a busy spin of about a microsecond. One
// operation is the whole drain; every key must be reconciled exactly once.
func BenchmarkWorkqueueDrain(b *testing.B) {
	n := big(100_000)
	keys := queueKeys(n)
	for _, reconcile := range []string{"noop", "spin"} {
		for _, workers := range []int{1, 4, 16} {
			for _, impl := range queueImpls {
				name := fmt.Sprintf("reconcile=%s/workers=%d/%s", reconcile, workers, impl.label())
				b.Run(name, func(b *testing.B) { drain(b, impl, keys, workers, reconcile == "spin") })
			}
		}
	}
}

// drain is one run of a drain benchmark: b.N drains of keys by workers
// workers of a new queue of impl each, every key reconciled exactly once.
func drain(b *testing.B, impl queueImpl, keys []string, workers int, busy bool) {
	seen := make([]int32, len(keys))
	notes := make([][]int, workers)
	for w := range notes {
		notes[w] = make([]int, 0, len(keys))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		drainOnce(b, impl.newQueue(), keys, busy, notes, seen)
		b.StopTimer()
		for i, c := range seen {
			if c != 1 {
				b.Fatalf("key %s reconciled %d times, want 1", keys[i], c)
			}
			seen[i] = 0
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(len(keys))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// drainOnce adds keys to q from this goroutine while len(notes) workers
// process them, and returns once every key has been processed and the
// workers have exited. Worker w notes the index of each key it processed in
// notes[w] (allocated by the caller, with room for every key); the notes are
// counted into seen after the workers stop.
func drainOnce(b *testing.B, q queue[string], keys []string, busy bool, notes [][]int, seen []int32) {
	var processed atomic.Int64
	all := make(chan struct{})
	var wg sync.WaitGroup
	var sink atomic.Uint64
	for w := range notes {
		wg.Go(func() {
			var local uint64
			mine := notes[w][:0]
			for {
				k, shutdown := q.Get()
				if shutdown {
					break
				}
				if busy {
					local += spin(uint64(len(k)))
				}
				i, err := strconv.Atoi(k[len(k)-6:])
				if err == nil {
					mine = append(mine, i)
				}
				q.Done(k)
				if processed.Add(1) == int64(len(keys)) {
					close(all)
				}
			}
			notes[w] = mine
			sink.Add(local)
		})
	}
	for _, k := range keys {
		q.Add(k)
	}
	select {
	case <-all:
	case <-time.After(time.Minute):
		q.ShutDown()
		wg.Wait()
		b.Fatalf("drain: %d of %d keys processed within a minute", processed.Load(), len(keys))
	}
	q.ShutDown()
	wg.Wait()
	for _, mine := range notes {
		for _, i := range mine {
			seen[i]++
		}
	}
}

// BenchmarkWorkqueueAddAfter adds b.N distinct items, each after a delay of
// 1 to 1,000 microseconds, while one worker takes them as they come due: the
// steady state of a waiting set about a thousand items deep. It ends when
// every item has been handed out exactly once.
func BenchmarkWorkqueueAddAfter(b *testing.B) {
	for _, impl := range queueImpls {
		b.Run(impl.label(), func(b *testing.B) {
			q := impl.newDelaying()
			var got atomic.Int64
			var dup atomic.Int64
			done := make(chan struct{})
			seen := make([]bool, b.N)
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					item, shutdown := q.Get()
					if shutdown {
						return
					}
					if seen[item] {
						dup.Add(1)
					}
					seen[item] = true
					q.Done(item)
					if got.Add(1) == int64(b.N) {
						close(done)
					}
				}
			})
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				q.AddAfter(i, time.Duration(i%1000+1)*time.Microsecond)
			}
			select {
			case <-done:
			case <-time.After(time.Minute):
				q.ShutDown()
				wg.Wait()
				b.Fatalf("AddAfter: %d of %d items handed out within a minute", got.Load(), b.N)
			}
			b.StopTimer()
			q.ShutDown()
			wg.Wait()
			if dup.Load() != 0 {
				b.Fatalf("%d items handed out twice", dup.Load())
			}
			for i, ok := range seen {
				if !ok {
					b.Fatalf("item %d never handed out", i)
				}
			}
		})
	}
}

// BenchmarkWorkqueueAddRateLimitedForget measures a failing-then-recovering
// item: AddRateLimited (an exponential per-item limiter, base 1ms, max 1s,
// the same settings on both sides) followed by Forget, over 1,000 keys. The
// check: every key reaches the queue after its delay, and Forget left no
// failure count behind.
//
// controller-runtime's priority queue takes adds through a buffer that
// another goroutine applies later, so its limiter counts a failure after
// the Forget that followed it: its counts are left above zero. For it, the
// benchmark reports what was left (requeues-left, 0 for the others) and then
// checks that a Forget once the buffer is applied clears every count.
func BenchmarkWorkqueueAddRateLimitedForget(b *testing.B) {
	const space = 1000
	keys := queueKeys(space)
	for _, impl := range queueImpls {
		b.Run(impl.label(), func(b *testing.B) {
			q := impl.newRateLimit(time.Millisecond, time.Second)
			defer q.ShutDown()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				k := keys[i%space]
				q.AddRateLimited(k)
				q.Forget(k)
			}
			b.StopTimer()
			want := min(b.N, space)
			eventually(b, 10*time.Second, "rate-limited keys reach the queue", func() bool { return q.Len() == want })
			left := 0
			for _, k := range keys {
				left += q.NumRequeues(k)
			}
			b.ReportMetric(float64(left), "requeues-left")
			if !impl.asyncAdd {
				if left != 0 {
					b.Fatalf("%d failures still counted after Forget, want 0", left)
				}
				return
			}
			eventually(b, 10*time.Second, "Forget clears every count", func() bool {
				for _, k := range keys {
					q.Forget(k)
				}
				for _, k := range keys {
					if q.NumRequeues(k) != 0 {
						return false
					}
				}
				return true
			})
		})
	}
}
