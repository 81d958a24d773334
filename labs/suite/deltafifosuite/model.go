package deltafifosuite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
)

// fifo is a DeltaFIFO with its consumer's store, which the model's Pop
// keeps as an informer does.
type fifo struct {
	q     Queue
	store indexer.Store
}

// fifoModel checks a DeltaFIFO against informerlab's over random sequences
// of Add, Update, Delete, Replace (repeated keys, missing keys, an object
// that cannot be keyed now and then), Resync, Pop and Close on three keys.
// Pop applies the deltas to the consumer's store as an informer does, and
// asks HasSynced while it processes. After every step the model compares
// the call's error, what Pop handed over, the queued keys and HasSynced.
// Run it inside a synctest bubble.
func fifoModel(impl Impl) grade.Model[fifo] {
	names := []string{"a", "b", "c"}
	newFifo := func(i Impl) func() fifo {
		return func() fifo {
			store := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
			return fifo{q: i.New(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, store), store: store}
		}
	}
	errOf := func(err error) string {
		if err != nil {
			return "error"
		}
		return "ok"
	}
	state := func(f fifo) string {
		keys := f.q.ListKeys()
		slices.Sort(keys)
		return fmt.Sprintf("ListKeys=%v; HasSynced=%v", keys, f.q.HasSynced())
	}
	return grade.Model[fifo]{
		What:      "DeltaFIFO",
		New:       newFifo(impl),
		Reference: newFifo(Reference),
		Close:     func(f fifo) { f.q.Close() },
		Seed:      1,
		Runs:      150,
		Steps:     25,
		Gen: func(r *rand.Rand) grade.Op[fifo] {
			o := obj(names[r.IntN(len(names))], fmt.Sprint(r.IntN(100)))
			call := func(verb string) string { return fmt.Sprintf("f.%s(%s@%s)", verb, o.Name, o.ResourceVersion) }
			switch n := r.IntN(100); {
			case n < 18:
				return grade.Op[fifo]{Call: call("Add"), Run: func(f fifo) string { return errOf(f.q.Add(o)) + "; " + state(f) }}
			case n < 30:
				return grade.Op[fifo]{Call: call("Update"), Run: func(f fifo) string { return errOf(f.q.Update(o)) + "; " + state(f) }}
			case n < 42:
				return grade.Op[fifo]{Call: call("Delete"), Run: func(f fifo) string { return errOf(f.q.Delete(o)) + "; " + state(f) }}
			case n < 54:
				var list []any
				var calls []string
				for range r.IntN(4) {
					lo := obj(names[r.IntN(len(names))], fmt.Sprint(r.IntN(100)))
					list, calls = append(list, lo), append(calls, lo.Name+"@"+lo.ResourceVersion)
				}
				if r.IntN(6) == 0 {
					list, calls = append(list, "not an object"), append(calls, `"not an object"`)
				}
				return grade.Op[fifo]{Call: "f.Replace([" + strings.Join(calls, " ") + "])", Run: func(f fifo) string {
					if n := appendedTombstones(f, list); n > 1 {
						// The order of those tombstones is left open.
						return fmt.Sprintf("(not called: it would queue %d tombstones of known objects, in an order the contract leaves open); %s", n, state(f))
					}
					return errOf(f.q.Replace(list, "")) + "; " + state(f)
				}}
			case n < 60:
				return grade.Op[fifo]{Call: "f.Resync()", Run: func(f fifo) string {
					if n := appendedTombstones(f, nil); n > 1 {
						return fmt.Sprintf("(not called: it would queue %d Syncs, in an order the contract leaves open); %s", n, state(f))
					}
					return errOf(f.q.Resync()) + "; " + state(f)
				}}
			case n < 97:
				return grade.Op[fifo]{Call: "f.Pop(apply to the store) // only if ListKeys() is not empty", Run: func(f fifo) string {
					if len(f.q.ListKeys()) == 0 {
						return "(not called); " + state(f)
					}
					var got string
					var err error
					if !grade.Returns(func() { got, err = popInto(f) }) {
						f.q.Close()
						return "Pop blocked with keys queued; " + state(f)
					}
					return got + " " + errOf(err) + "; " + state(f)
				}}
			}
			return grade.Op[fifo]{Call: "f.Close()", Run: func(f fifo) string { f.q.Close(); return state(f) }}
		},
	}
}

// appendedTombstones counts the keys a Replace of list would queue a
// tombstone for at the back of the line (a Resync, a Sync, if list is
// nil): stored by the consumer, not queued, not listed.
func appendedTombstones(f fifo, list []any) int {
	skip := map[string]bool{}
	for _, k := range f.q.ListKeys() {
		skip[k] = true
	}
	for _, o := range list {
		if k, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(o); err == nil {
			skip[k] = true
		}
	}
	n := 0
	for _, k := range f.store.ListKeys() {
		if !skip[k] {
			n++
		}
	}
	return n
}

// popInto pops one key and applies its deltas to the consumer's store,
// as an informer does, noting HasSynced before and after.
func popInto(f fifo) (string, error) {
	var b strings.Builder
	_, err := f.q.Pop(func(ds deltafifo.Deltas, initial bool) error {
		fmt.Fprintf(&b, "popped")
		for _, d := range ds {
			o, tomb := d.Object, ""
			if t, ok := o.(deltafifo.DeletedFinalStateUnknown); ok {
				o, tomb = t.Obj, "tombstone "+t.Key+" of "
			}
			m, ok := o.(metav1.Object)
			if !ok {
				fmt.Fprintf(&b, " %s/%s%T", d.Type, tomb, o)
				continue
			}
			fmt.Fprintf(&b, " %s/%s%s@%s", d.Type, tomb, m.GetName(), m.GetResourceVersion())
			if d.Type == deltafifo.Deleted {
				_ = f.store.Delete(d.Object)
			} else {
				_ = f.store.Update(o)
			}
		}
		fmt.Fprintf(&b, " initial=%v HasSynced while processing=%v", initial, f.q.HasSynced())
		return nil
	})
	return b.String(), err
}

// modelBehaviour is the DeltaFIFO's model behaviour.
func modelBehaviour(impl Impl) grade.Behaviour {
	return grade.Behaviour{
		Name: "MatchesInformerlabOnRandomSequences",
		Want: "over random sequences of Add, Update, Delete, Replace, Resync, Pop and Close on a few keys, every error, every Pop's deltas, the queued keys and HasSynced match informerlab's DeltaFIFO step by step",
		Doc:  docDesign,
		Test: func(t *testing.T) {
			grade.Bubble(t, func(t *testing.T) { fifoModel(impl).Check(t) })
		},
	}
}
