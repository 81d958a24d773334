package workqueue_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

// TestStressManyProducersAndWorkersOverFewKeys hammers each queue that can
// rate-limit with 8 producers and 8 workers over 16 keys: random Add, AddAfter and
// AddRateLimited from producers, random failures (AddRateLimited) and successes
// (Forget) in workers, all under -race. It runs in a synctest bubble so delays cost
// no wall time, and is bounded by a count of operations, not by a clock.
//
// It runs in rounds; at the end of each round retries stop, every delay passes and
// the workers go idle. It proves the three promises that matter under load:
//   - no key is ever processed by two workers at once;
//   - no add is lost: every add bumps the key's version just before it is made, and
//     every worker reads the version when its processing starts; at the end of every
//     round, every key's latest version was read by a processing that started after
//     that add (a level-triggered controller needs exactly this);
//   - ShutDownWithDrain returns only with nothing queued and nothing in flight.
//
// Diagram: steps 7, 8. client-go: util/workqueue (doc.go promises).
func TestStressManyProducersAndWorkersOverFewKeys(t *testing.T) {
	const maxDelay = 20 * time.Millisecond
	limiter := func() workqueue.RateLimiter[int] {
		return workqueue.NewWithMaxWaitRateLimiter(workqueue.NewItemExponentialFailureRateLimiter[int](time.Millisecond, time.Hour), maxDelay)
	}
	for name, newQueue := range map[string]func() workqueue.RateLimitingInterface[int]{
		"rate-limiting": func() workqueue.RateLimitingInterface[int] { return workqueue.NewRateLimiting(limiter()) },
		"priority":      func() workqueue.RateLimitingInterface[int] { return workqueue.NewPriorityQueue(limiter()) },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stress(t, newQueue(), maxDelay)
			})
		})
	}
}

func stress(t *testing.T, q workqueue.RateLimitingInterface[int], maxDelay time.Duration) {
	const (
		rounds         = 20
		producers      = 8
		workers        = 8
		keys           = 16
		opsPerProducer = 150 // per round
	)
	var (
		version     [keys]atomic.Int64 // bumped just before every add of the key
		seen        [keys]atomic.Int64 // highest version read when a processing started
		busy        [keys]atomic.Bool  // a worker is processing the key
		overlaps    atomic.Int64
		inFlight    atomic.Int64
		processings atomic.Int64
		noFailures  atomic.Bool // set at the end of a round, so retries die out
	)
	bump := func(key int) { version[key].Add(1) }

	var workersDone sync.WaitGroup
	for w := range workers {
		rng := rand.New(rand.NewPCG(uint64(w), 1))
		workersDone.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				inFlight.Add(1)
				if !busy[key].CompareAndSwap(false, true) {
					overlaps.Add(1)
				}
				for v := version[key].Load(); ; {
					old := seen[key].Load()
					if v <= old || seen[key].CompareAndSwap(old, v) {
						break
					}
				}
				processings.Add(1)
				if rng.IntN(3) == 0 {
					time.Sleep(time.Duration(rng.IntN(1000)) * time.Microsecond)
				} else {
					runtime.Gosched()
				}
				if !noFailures.Load() && rng.IntN(4) == 0 {
					bump(key)
					q.AddRateLimited(key) // reconcile failed: retry later
				} else {
					q.Forget(key)
				}
				busy[key].Store(false)
				inFlight.Add(-1)
				q.Done(key)
			}
		})
	}

	for round := range rounds {
		noFailures.Store(false)
		var producersDone sync.WaitGroup
		for p := range producers {
			rng := rand.New(rand.NewPCG(uint64(p), uint64(round)))
			producersDone.Go(func() {
				for range opsPerProducer {
					key := rng.IntN(keys)
					bump(key)
					switch r := rng.IntN(10); {
					case r < 5:
						q.Add(key)
					case r < 8:
						q.AddAfter(key, time.Duration(rng.Int64N(int64(maxDelay))))
					default:
						q.AddRateLimited(key)
					}
					if rng.IntN(20) == 0 {
						time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
					}
				}
			})
		}
		producersDone.Wait()
		noFailures.Store(true)
		time.Sleep(2*maxDelay + time.Millisecond) // every delayed add is due by now
		synctest.Wait()                           // and every worker is idle in Get

		require.Equal(t, 0, q.Len(), "round %d", round)
		require.Equal(t, int64(0), inFlight.Load(), "round %d", round)
		require.NoError(t, workqueue.CheckInvariants[int](q), "round %d", round)
		for key := range keys {
			require.Equal(t, version[key].Load(), seen[key].Load(), "round %d: the last add of key %d was never processed", round, key)
		}
	}

	for key := range keys { // a last burst, drained by ShutDownWithDrain
		bump(key)
		q.Add(key)
	}
	q.ShutDownWithDrain()

	assert.Equal(t, 0, q.Len(), "drain returned with items queued")
	assert.Equal(t, int64(0), inFlight.Load(), "drain returned with items in flight")
	require.NoError(t, workqueue.CheckInvariants[int](q))
	workersDone.Wait()
	assert.Equal(t, int64(0), overlaps.Load(), "a key was processed by two workers at once")
	for key := range keys {
		assert.Equal(t, version[key].Load(), seen[key].Load(), "key %d: its last add was never processed", key)
	}
	t.Logf("%d adds, %d processings", rounds*producers*opsPerProducer+keys, processings.Load())
}
