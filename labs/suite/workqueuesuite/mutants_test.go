package workqueuesuite_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
	"github.com/informerlab/informerlab/workqueue"
)

// naiveQueue is a plain FIFO of items: no de-duplication, no processing
// set, delays by time.AfterFunc. It looks like a queue and is not one.
type naiveQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []string
	shut  bool
}

func newNaiveQueue() workqueue.DelayingInterface[string] {
	q := &naiveQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *naiveQueue) Add(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.shut {
		q.items = append(q.items, item)
		q.cond.Signal()
	}
}

func (q *naiveQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

func (q *naiveQueue) Get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.shut {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return "", true
	}
	item := q.items[0]
	q.items = q.items[1:]
	return item, false
}

func (q *naiveQueue) Done(string) {}

func (q *naiveQueue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shut = true
	q.cond.Broadcast()
}

func (q *naiveQueue) ShutDownWithDrain() { q.ShutDown() }

func (q *naiveQueue) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shut
}

func (q *naiveQueue) AddAfter(item string, d time.Duration) {
	if d <= 0 {
		q.Add(item)
		return
	}
	time.AfterFunc(d, func() { q.Add(item) })
}

var mutants = map[string]workqueuesuite.Impl{
	"naive": {NewQueue: newNaiveQueue},
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, workqueuesuite.Behaviours(mutants[name]))
	}
}

func TestSuiteCatchesANaiveQueue(t *testing.T) {
	failed := grade.FailedInChild(t, "TestHelperMutant", "naive")
	assert.Subset(t, failed, []string{
		"AddCollapsesWhileWaiting",
		"ItemInProcessIsNotHandedOutAgain",
		"ShutDownWithDrainWaitsForWork",
		"AddAfterKeepsEarlierTime",
		"DelayedItemCollapsesWithWaitingItem",
	})
}
