package workqueuesuite_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/workqueuesuite"
	"github.com/informerlab/informerlab/workqueue"
)

// catalogue is the mistakes a learner plausibly makes writing lab 2, each
// with the behaviours that must report it. The wrong code is in
// learnerQueue, behind `q.mistake == "<name>"`: the queue a learner writes
// from the README's hints, right but for that one mistake.
var catalogue = []grade.Mistake{
	{Name: "no-dedup", What: "Add appends an item that is already waiting",
		Catches: []string{"AddCollapsesWhileWaiting", "DelayedItemCollapsesWithWaitingItem"}},
	{Name: "add-while-processing-queues", What: "Add puts an item being processed straight back in line, not in dirty only",
		Catches: []string{"ItemInProcessIsNotHandedOutAgain"}},
	{Name: "add-while-processing-lost", What: "Add of an item being processed does nothing, so the change is lost",
		Catches: []string{"AddWhileProcessingRequeuesAfterDone"}},
	{Name: "done-does-not-wake-get", What: "Done puts a dirty item back in line but signals no waiting Get",
		Catches: []string{"DoneRequeueWakesWaitingGet"}},
	{Name: "stray-done-queues-twice", What: "Done of an item that is waiting, not processed, appends it again (Hint 3 read without its first clause)",
		Catches: []string{"DoneWithoutRequeueForgetsItem"}},
	{Name: "len-counts-processing", What: "Len counts the items being processed as well as the waiting ones",
		Catches: []string{"ItemInProcessIsNotHandedOutAgain"}},
	{Name: "get-busy-loops", What: "Get polls the line in a loop instead of waiting on a condition variable",
		Catches: []string{"GetBlocksUntilAnAdd", "ShutDownWakesBlockedGets"}},
	{Name: "shutdown-signals-one", What: "ShutDown wakes one blocked Get (Signal) instead of all (Broadcast)",
		Catches: []string{"ShutDownWakesBlockedGets"}},
	{Name: "shutdown-drops-waiting", What: "Get reports shutdown as soon as the queue shuts down, dropping the items still waiting",
		Catches: []string{"ShutDownHandsOutWaitingItemsThenStops"}},
	{Name: "drain-waits-only-in-flight", What: "ShutDownWithDrain waits until nothing is processed, not until nothing is waiting either",
		Catches: []string{"ShutDownWithDrainWaitsForWork"}},
	{Name: "drain-never-shuts-down", What: "ShutDownWithDrain waits for the queue to empty but never shuts it down, so workers never stop",
		Catches: []string{"ShutDownWithDrainWaitsForWork", "ManyWorkersProcessEachItemOnce"}},
	{Name: "shutdown-does-not-cancel-drain", What: "ShutDownWithDrain waits until the queue is empty whatever happens, so a ShutDown cannot cut it short",
		Catches: []string{"ShutDownCancelsADrain"}},
	{Name: "addafter-later-wins", What: "a second AddAfter of a delayed item replaces its time, even with a later one",
		Catches: []string{"AddAfterKeepsEarlierTime"}},
	{Name: "addafter-sleeps-per-call", What: "AddAfter starts a goroutine per call that sleeps and adds, remembering no ready time",
		Catches: []string{"AddAfterKeepsEarlierTime"}},
	{Name: "addafter-blocks", What: "AddAfter sleeps the delay itself before adding",
		Catches: []string{"AddAfterWaitsTheDelay"}},
	{Name: "addafter-earlier-does-not-wake", What: "the delay loop sleeps until the earliest ready time it knew when it fell asleep; an AddAfter due sooner does not wake it",
		Catches: []string{"AddAfterOfAnEarlierItemIsNotHeldBack", "MatchesInformerlabOnRandomSequences"}},
	{Name: "addafter-skips-waiting-item", What: "AddAfter of an item already waiting (dirty) does nothing, so the later add is lost once the item is handed out",
		Catches: []string{"AddAfterOfAWaitingItemAddsItAgainLater", "MatchesInformerlabOnRandomSequences"}},
	{Name: "delayed-survive-shutdown", What: "ShutDown leaves the delay timers running, and a timer that fires puts its item in line",
		Catches: []string{"ShutDownDropsDelayedItems"}},
}

// learnerQueue is lab 2 as the README's hints build it — a line, a dirty
// set, a processing set, a condition variable, one timer per delayed item —
// with one mistake switched on by name.
type learnerQueue struct {
	mistake string

	mu         sync.Mutex // guards every field below
	cond       *sync.Cond // signalled when the line grows or the queue shuts down
	idle       *sync.Cond // broadcast when the queue may have emptied
	line       []string
	dirty      map[string]bool
	processing map[string]bool
	shut       bool
	cancels    int                    // ShutDown calls, which cancel a drain
	readyAt    map[string]time.Time   // delayed items and when they are due
	timers     map[string]*time.Timer // one per delayed item
}

func newLearnerQueue(mistake string) workqueue.DelayingInterface[string] {
	q := &learnerQueue{
		mistake:    mistake,
		dirty:      map[string]bool{},
		processing: map[string]bool{},
		readyAt:    map[string]time.Time{},
		timers:     map[string]*time.Timer{},
	}
	q.cond = sync.NewCond(&q.mu)
	q.idle = sync.NewCond(&q.mu)
	return q
}

func (q *learnerQueue) Add(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(item)
}

func (q *learnerQueue) addLocked(item string) {
	if q.shut {
		return
	}
	if q.dirty[item] && q.mistake != "no-dedup" {
		return
	}
	if q.processing[item] {
		switch q.mistake {
		case "add-while-processing-lost":
			return
		case "add-while-processing-queues":
			q.line = append(q.line, item)
			q.cond.Signal()
			return
		}
	}
	q.dirty[item] = true
	if q.processing[item] {
		return // Done puts it back in line
	}
	q.line = append(q.line, item)
	q.cond.Signal()
}

func (q *learnerQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.mistake == "len-counts-processing" {
		return len(q.line) + len(q.processing)
	}
	return len(q.line)
}

func (q *learnerQueue) Get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.line) == 0 && !q.shut {
		if q.mistake == "get-busy-loops" {
			q.mu.Unlock()
			runtime.Gosched()
			q.mu.Lock()
			continue
		}
		q.cond.Wait()
	}
	if len(q.line) == 0 || q.shut && q.mistake == "shutdown-drops-waiting" {
		return "", true
	}
	item := q.line[0]
	q.line = q.line[1:]
	delete(q.dirty, item)
	q.processing[item] = true
	return item, false
}

func (q *learnerQueue) Done(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.processing[item] && q.mistake != "stray-done-queues-twice" {
		return
	}
	delete(q.processing, item)
	if q.dirty[item] {
		q.line = append(q.line, item)
		if q.mistake != "done-does-not-wake-get" {
			q.cond.Signal()
		}
	}
	q.idle.Broadcast()
}

func (q *learnerQueue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
	q.cancels++
	q.idle.Broadcast()
}

func (q *learnerQueue) shutDownLocked() {
	q.shut = true
	if q.mistake == "shutdown-signals-one" {
		q.cond.Signal()
	} else {
		q.cond.Broadcast()
	}
	if q.mistake == "delayed-survive-shutdown" {
		return
	}
	for item, t := range q.timers {
		t.Stop()
		delete(q.timers, item)
		delete(q.readyAt, item)
	}
}

func (q *learnerQueue) ShutDownWithDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.mistake != "drain-never-shuts-down" {
		q.shutDownLocked()
	}
	busy := func() bool {
		if q.mistake == "drain-waits-only-in-flight" {
			return len(q.processing) > 0
		}
		return len(q.line) > 0 || len(q.processing) > 0
	}
	cancelled := func(cancels int) bool {
		return cancels != q.cancels && q.mistake != "shutdown-does-not-cancel-drain"
	}
	for cancels := q.cancels; !cancelled(cancels) && busy(); {
		q.idle.Wait()
	}
}

func (q *learnerQueue) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shut
}

func (q *learnerQueue) AddAfter(item string, d time.Duration) {
	if d <= 0 {
		q.Add(item)
		return
	}
	switch q.mistake {
	case "addafter-blocks":
		time.Sleep(d)
		q.Add(item)
		return
	case "addafter-sleeps-per-call":
		go func() {
			time.Sleep(d)
			q.Add(item)
		}()
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shut {
		return
	}
	if q.mistake == "addafter-skips-waiting-item" && q.dirty[item] {
		return
	}
	at := time.Now().Add(d)
	fire := d
	if q.mistake == "addafter-earlier-does-not-wake" {
		// One loop sleeps until the earliest time it knew: nothing
		// comes out before that.
		var earliest time.Time
		for _, other := range q.readyAt {
			if earliest.IsZero() || other.Before(earliest) {
				earliest = other
			}
		}
		if wait := time.Until(earliest); !earliest.IsZero() && wait > fire {
			fire = wait
		}
	}
	if old, ok := q.readyAt[item]; ok {
		if !old.After(at) && q.mistake != "addafter-later-wins" {
			return
		}
		q.timers[item].Stop()
	}
	q.readyAt[item] = at
	q.timers[item] = time.AfterFunc(fire, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if !q.readyAt[item].Equal(at) {
			return // brought forward: another timer adds it
		}
		delete(q.readyAt, item)
		delete(q.timers, item)
		if q.mistake == "delayed-survive-shutdown" && q.shut {
			q.line = append(q.line, item) // the timer forgets that Add checks shut
			return
		}
		q.addLocked(item)
	})
}

// TestHelperMutant grades one mutant, in the child process CatchesMistakes
// starts; the name "correct" grades learnerQueue without a mistake.
func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, workqueuesuite.Behaviours(workqueuesuite.Impl{
			NewQueue: func() workqueue.DelayingInterface[string] { return newLearnerQueue(name) },
		}))
	}
}

func TestLearnerQueueWithoutMistakePasses(t *testing.T) {
	grade.Reference(t, workqueuesuite.Behaviours(workqueuesuite.Impl{
		NewQueue: func() workqueue.DelayingInterface[string] { return newLearnerQueue("") },
	}))
}

func TestSuiteCatchesEveryMistake(t *testing.T) {
	grade.CatchesMistakes(t, "TestHelperMutant", catalogue)
}
