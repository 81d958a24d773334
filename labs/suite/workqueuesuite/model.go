package workqueuesuite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/workqueue"
)

// queue is the delaying queue a model behaviour drives.
type queue = workqueue.DelayingInterface[string]

// queueModel checks a queue against informerlab's over random sequences
// of Add, AddAfter, Get, Done, time passing and ShutDown, on three keys,
// so that one key is added, delayed, handed out and finished again and
// again. After every step it compares the call's answer, Len and
// ShuttingDown. Run it inside a synctest bubble.
func queueModel(newQueue func() queue) grade.Model[queue] {
	keys := []string{"a", "b", "c"}
	// Delays are whole half-seconds, as are the sleeps; see AddAfter.
	delays := []time.Duration{-time.Second, 0, time.Second, 2 * time.Second, 3 * time.Second, 10 * time.Second}
	sleeps := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second}
	// call runs fn on q, and says so if fn never returns; a Get left
	// blocked is woken by shutting q down.
	call := func(q queue, what string, fn func()) string {
		if grade.Returns(fn) {
			return ""
		}
		q.ShutDown()
		return what + " blocked (never returned); "
	}
	state := func(q queue) string { return fmt.Sprintf("Len=%d ShuttingDown=%v", q.Len(), q.ShuttingDown()) }
	return grade.Model[queue]{
		What:      "Queue",
		New:       newQueue,
		Reference: Reference.NewQueue,
		Close:     func(q queue) { q.ShutDown() },
		Seed:      1,
		Gen: func(r *rand.Rand) grade.Op[queue] {
			k := keys[r.IntN(len(keys))]
			switch n := r.IntN(100); {
			case n < 24:
				return grade.Op[queue]{Call: fmt.Sprintf("q.Add(%q)", k), Run: func(q queue) string {
					return call(q, "Add", func() { q.Add(k) }) + state(q)
				}}
			case n < 44:
				d := delays[r.IntN(len(delays))]
				if d > 0 {
					// Time passes in steps of 500ms, so without this two
					// keys could come due at the same instant, in an
					// order the contract leaves open.
					d += time.Duration(slices.Index(keys, k)) * time.Millisecond
				}
				return grade.Op[queue]{Call: fmt.Sprintf("q.AddAfter(%q, %v)", k, d), Run: func(q queue) string {
					return call(q, "AddAfter", func() { q.AddAfter(k, d) }) + state(q)
				}}
			case n < 64:
				return grade.Op[queue]{Call: "q.Get() // only if Len() > 0 or ShuttingDown()", Run: func(q queue) string {
					if q.Len() == 0 && !q.ShuttingDown() {
						return "(not called) " + state(q)
					}
					var item string
					var shutdown bool
					blocked := call(q, "Get", func() { item, shutdown = q.Get() })
					return fmt.Sprintf("%s(%q, shutdown=%v) %s", blocked, item, shutdown, state(q))
				}}
			case n < 80:
				return grade.Op[queue]{Call: fmt.Sprintf("q.Done(%q)", k), Run: func(q queue) string {
					return call(q, "Done", func() { q.Done(k) }) + state(q)
				}}
			case n < 97:
				d := sleeps[r.IntN(len(sleeps))]
				return grade.Op[queue]{Call: fmt.Sprintf("time.Sleep(%v)", d), Run: func(q queue) string {
					time.Sleep(d)
					grade.Returns(func() {}) // let the queue move what came due
					return state(q)
				}}
			}
			return grade.Op[queue]{Call: "q.ShutDown()", Run: func(q queue) string {
				return call(q, "ShutDown", q.ShutDown) + state(q)
			}}
		},
	}
}

// modelBehaviour is the queue's model behaviour.
func modelBehaviour(impl Impl) grade.Behaviour {
	return grade.Behaviour{
		Name: "MatchesInformerlabOnRandomSequences",
		Want: "over random sequences of Add, AddAfter, Get, Done, time passing and ShutDown on a few keys, every answer, Len and ShuttingDown match informerlab's queue step by step",
		Doc:  docGetDone,
		Test: func(t *testing.T) {
			grade.Bubble(t, func(t *testing.T) { queueModel(impl.NewQueue).Check(t) })
		},
	}
}
