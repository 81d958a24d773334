package workqueue_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

// TestAddRateLimitedBacksOffUntilForget: a key that keeps failing comes back after
// 5ms, 10ms, 20ms; once processed successfully and forgotten, its next failure
// waits 5ms again.
// Diagram: steps 7, 8. client-go: rateLimitingType.AddRateLimited / Forget.
func TestAddRateLimitedBacksOffUntilForget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewRateLimiting(workqueue.NewItemExponentialFailureRateLimiter[string](5*ms, time.Second))
		q.Add("ns/a")
		var waits []time.Duration
		var failedAt time.Time

		for attempt := range 4 { // four attempts, each failing
			key, _ := q.Get()
			if attempt > 0 {
				waits = append(waits, time.Since(failedAt))
			}
			q.AddRateLimited(key)
			q.Done(key)
			failedAt = time.Now()
		}

		assert.Equal(t, []time.Duration{5 * ms, 10 * ms, 20 * ms}, waits)
		assert.Equal(t, 4, q.NumRequeues("ns/a"))
		t.Logf("four failures, each AddRateLimited: the key came back after %v; NumRequeues is %d", waits, q.NumRequeues("ns/a"))
		key, _ := q.Get() // the fifth attempt succeeds
		q.Forget(key)
		t.Logf("the fifth attempt succeeds: Forget; NumRequeues is %d", q.NumRequeues("ns/a"))
		assert.Equal(t, 0, q.NumRequeues("ns/a"))
		q.Done(key)
		q.Add(key) // the object changes later, and the next attempt fails
		key, _ = q.Get()
		q.AddRateLimited(key)
		q.Done(key)
		failedAt = time.Now()
		_, _ = q.Get()
		t.Logf("a later failure waits %v again", time.Since(failedAt))
		assert.Equal(t, 5*ms, time.Since(failedAt))
		q.ShutDown()
	})
}

// TestForgetDoesNotReplaceDone: Forget clears the backoff only; an item whose worker
// never calls Done stays checked out, so a new add is never handed out.
// Diagram: step 8. client-go: rateLimitingType.Forget ("you still have to call Done").
func TestForgetDoesNotReplaceDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewRateLimiting[string](nil)
		q.Add("ns/a")
		key, _ := q.Get()

		q.Forget(key)
		q.Add(key)
		got := getAsync[string](q)
		synctest.Wait()

		assert.Empty(t, got, "without Done the key is still being processed")
		t.Log("a worker takes ns/a and calls Forget but not Done; ns/a is added again: no other worker gets it")
		q.Done(key)
		assert.Equal(t, "ns/a", <-got)
		t.Log("   after Done, another worker gets ns/a")
		q.ShutDown()
	})
}

// TestRateLimitingQueueWithoutALimiterUsesTheDefault: nil means
// DefaultControllerRateLimiter, whose first delay is 5ms.
// Diagram: step 7. client-go: DefaultTypedControllerRateLimiter.
func TestRateLimitingQueueWithoutALimiterUsesTheDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewRateLimiting[string](nil)
		start := time.Now()

		q.AddRateLimited("ns/a")
		key, shutdown := q.Get()

		require.False(t, shutdown)
		assert.Equal(t, "ns/a", key)
		assert.Equal(t, 5*ms, time.Since(start))
		assert.Equal(t, 1, q.NumRequeues("ns/a"))
		requireInvariants(t, q)
		q.ShutDown()
	})
}
