package workqueue_test

import (
	"errors"
	"fmt"

	"github.com/informerlab/informerlab/workqueue"
)

// Example walks the loop every controller runs around its workqueue: event handlers
// add keys (step 7); a worker takes a key (step 8), reconciles it, then calls Forget
// on success or AddRateLimited on failure, and always calls Done.
func Example() {
	queue := workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())

	// Step 7: event handlers enqueue keys, not objects. Three events, two objects:
	// the second add of default/web collapses into the first.
	queue.Add("default/web")
	queue.Add("default/db")
	queue.Add("default/web")
	fmt.Println("queued:", queue.Len())

	attempts := map[string]int{}
	reconcile := func(key string) error {
		attempts[key]++
		if key == "default/db" && attempts[key] < 3 {
			return errors.New("database not ready")
		}
		return nil
	}

	// processNextWorkItem is the body of every worker's loop.
	processNextWorkItem := func() bool {
		key, shutdown := queue.Get() // Step 8: blocks until a key is ready.
		if shutdown {
			return false
		}
		defer queue.Done(key) // Always: the key may be handed out again after this.

		if err := reconcile(key); err != nil {
			queue.AddRateLimited(key) // Retry later: 5ms, then 10ms, 20ms, ...
			fmt.Printf("%s: %v, retry #%d\n", key, err, queue.NumRequeues(key))
			return true
		}
		queue.Forget(key) // Success: the next failure starts the backoff over.
		fmt.Printf("%s: synced after %d attempt(s)\n", key, attempts[key])
		return true
	}

	for range 4 {
		processNextWorkItem()
	}
	queue.ShutDown()
	fmt.Println("worker keeps going:", processNextWorkItem())

	// Output:
	// queued: 2
	// default/web: synced after 1 attempt(s)
	// default/db: database not ready, retry #1
	// default/db: database not ready, retry #2
	// default/db: synced after 3 attempt(s)
	// worker keeps going: false
}

// ExampleNewPriorityQueue: keys from the initial list or a resync go in at a low
// priority, so a real change queued after them is still handled first.
func ExampleNewPriorityQueue() {
	queue := workqueue.NewPriorityQueue[string](nil)
	low := -100

	queue.AddWithOpts(workqueue.AddOpts{Priority: &low}, "default/a", "default/b")
	queue.Add("default/c") // a real change: priority 0

	for queue.Len() > 0 {
		key, priority, _ := queue.GetWithPriority()
		fmt.Println(key, priority)
		queue.Done(key)
	}
	queue.ShutDown()

	// Output:
	// default/c 0
	// default/a -100
	// default/b -100
}
