package walkthrough

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/workqueue"
)

// TestConfusionForgetDoneAddRateLimited drives a rate-limiting queue (5ms
// doubling to 1000s, controller-runtime's per-item backoff) by hand, the
// way a worker does, and measures the waits on the bubble's clock:
//
//   - AddRateLimited is "this failed": each call counts one more requeue and
//     the key comes back after 5ms, 10ms, 20ms.
//   - Forget is "this succeeded": it clears the count, so the next failure
//     waits 5ms again. A worker that never calls Forget makes the next
//     failure wait 40ms, as if the old failures had just happened.
//   - Done is "I have finished with this key", whatever the outcome. A key
//     added again while it is being processed is held back until Done; a
//     worker that forgets Done never sees that key again.
//
// Diagram: steps 7, 8. client-go: workqueue.TypedRateLimitingInterface, sample-controller processNextWorkItem.
func TestConfusionForgetDoneAddRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, forget := range []bool{true, false} {
			queue := workqueue.NewRateLimiting(workqueue.NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second))
			queue.Add("ns/a")
			key, _ := queue.Get()

			var waits []time.Duration
			for range 3 { // three failures
				queue.AddRateLimited(key)
				queue.Done(key)
				start := time.Now()
				key, _ = queue.Get()
				waits = append(waits, time.Since(start))
			}
			if forget {
				t.Log("1. Three failures in a row, each AddRateLimited then Done")
				t.Logf("   the key came back after %v; NumRequeues is %d", waits, queue.NumRequeues(key))
			}
			assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, waits)
			assert.Equal(t, 3, queue.NumRequeues(key))

			if forget { // the fourth attempt succeeds
				queue.Forget(key)
			}
			queue.Done(key)
			queue.Add(key) // a later event; this time it fails
			key, _ = queue.Get()
			queue.AddRateLimited(key)
			queue.Done(key)
			start := time.Now()
			key, _ = queue.Get()
			queue.Done(key)

			if forget {
				t.Logf("2. With Forget after a success, the next failure waits %v; NumRequeues is %d", time.Since(start), queue.NumRequeues(key))
			} else {
				t.Logf("3. Without Forget, the next failure waits %v; NumRequeues is %d", time.Since(start), queue.NumRequeues(key))
			}
			if forget {
				assert.Equal(t, 5*time.Millisecond, time.Since(start), "after Forget the backoff starts again")
				assert.Equal(t, 1, queue.NumRequeues(key))
			} else {
				assert.Equal(t, 40*time.Millisecond, time.Since(start), "without Forget the old failures still count")
				assert.Equal(t, 4, queue.NumRequeues(key))
			}
			queue.ShutDown()
		}

		queue := workqueue.NewRateLimiting[string](nil)
		defer queue.ShutDown()
		queue.Add("ns/b")
		key, _ := queue.Get() // a worker takes it, and never calls Done
		queue.Add(key)        // the object changes again
		got := make(chan string)
		go func() {
			next, shutdown := queue.Get()
			if !shutdown {
				got <- next
			}
		}()
		synctest.Wait()

		t.Logf("4. A key added again while a worker holds it: Len() is %d, the second worker waits", queue.Len())
		assert.Equal(t, 0, queue.Len(), "the new add waits for a Done that never comes")
		select {
		case <-got:
			t.Fatal("a key was handed out while it was still being processed")
		default:
		}
		queue.Done(key)
		next := <-got
		t.Logf("   after the first worker's Done, the second worker gets %q", next)
		require.Equal(t, "ns/b", next, "Done lets the held-back add through")
		queue.Done(key)
	})
}
