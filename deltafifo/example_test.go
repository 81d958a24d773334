package deltafifo_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
)

// pod is a namespaced object with just enough metadata to be keyed.
func pod(name, resourceVersion string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: resourceVersion},
	}
}

// describe renders a delta the way the examples print it.
func describe(d deltafifo.Delta) string {
	switch o := d.Object.(type) {
	case deltafifo.DeletedFinalStateUnknown:
		return fmt.Sprintf("%s tombstone for %s", d.Type, o.Key)
	case metav1.Object:
		return fmt.Sprintf("%s %s@%s", d.Type, o.GetName(), o.GetResourceVersion())
	}
	return string(d.Type)
}

// printDeltas is a PopProcessFunc that prints what it is given.
func printDeltas(deltas deltafifo.Deltas, isInInitialList bool) error {
	line := ""
	for i, d := range deltas {
		if i > 0 {
			line += ", "
		}
		line += describe(d)
	}
	fmt.Printf("pop: %s (initial list: %v)\n", line, isInInitialList)
	return nil
}

// A Reflector lists two pods (step 1), queues the list with Replace and then
// the watch events (step 2); the informer pops one key at a time with all its
// deltas (step 3).
func ExampleDeltaFIFO() {
	q := deltafifo.New(deltafifo.Options{})

	_ = q.Replace([]any{pod("web", "1"), pod("db", "1")}, "1")
	_ = q.Update(pod("web", "2"))
	_ = q.Add(pod("cache", "3"))
	_ = q.Update(pod("web", "4"))
	fmt.Println("queued keys:", q.ListKeys())

	for len(q.ListKeys()) > 0 {
		_, _ = q.Pop(printDeltas)
		fmt.Println("  synced:", q.HasSynced())
	}
	// Output:
	// queued keys: [default/web default/db default/cache]
	// pop: Replaced web@1, Updated web@2, Updated web@4 (initial list: true)
	//   synced: false
	// pop: Replaced db@1 (initial list: true)
	//   synced: true
	// pop: Added cache@3 (initial list: false)
	//   synced: true
}

// knownPods is a stand-in for the informer's Indexer: what the consumer has
// stored so far.
type knownPods map[string]any

func (k knownPods) ListKeys() []string {
	keys := make([]string, 0, len(k))
	for key := range k {
		keys = append(keys, key)
	}
	return keys
}

func (k knownPods) GetByKey(key string) (any, bool, error) {
	obj, ok := k[key]
	return obj, ok, nil
}

// A pod the consumer has stored is deleted while the watch is down. The
// relist no longer lists it, so Replace queues a Deleted delta holding a
// DeletedFinalStateUnknown tombstone; a delete handler must accept one.
func ExampleDeltaFIFO_Replace() {
	known := knownPods{"default/web": pod("web", "1"), "default/db": pod("db", "1")}
	q := deltafifo.New(deltafifo.Options{KnownObjects: known})

	_ = q.Replace([]any{pod("web", "7")}, "7")

	for len(q.ListKeys()) > 0 {
		_, _ = q.Pop(func(deltas deltafifo.Deltas, _ bool) error {
			d := deltas.Newest()
			key, _ := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
			if tomb, ok := d.Object.(deltafifo.DeletedFinalStateUnknown); ok {
				last := tomb.Obj.(metav1.Object)
				fmt.Printf("%s: deleted while we were away; last seen at %s\n", key, last.GetResourceVersion())
				return nil
			}
			fmt.Printf("%s: %s\n", key, describe(*d))
			return nil
		})
	}
	// Output:
	// default/web: Replaced web@7
	// default/db: deleted while we were away; last seen at 1
}

// The same events as the DeltaFIFO example, through the in-order RealFIFO:
// one delta per Pop, in arrival order, nothing merged.
func ExampleRealFIFO() {
	q := deltafifo.NewRealFIFO(deltafifo.Options{})

	_ = q.Replace([]any{pod("web", "1"), pod("db", "1")}, "1")
	_ = q.Update(pod("web", "2"))
	_ = q.Add(pod("cache", "3"))
	_ = q.Update(pod("web", "4"))

	for len(q.ListKeys()) > 0 {
		_, _ = q.Pop(printDeltas)
	}
	fmt.Println("synced:", q.HasSynced())
	// Output:
	// pop: Replaced web@1 (initial list: true)
	// pop: Replaced db@1 (initial list: true)
	// pop: Updated web@2 (initial list: false)
	// pop: Added cache@3 (initial list: false)
	// pop: Updated web@4 (initial list: false)
	// synced: true
}

// The same events through an atomic RealFIFO (client-go's default since
// 1.36): the list is one ReplacedAll delta, which the consumer applies to its
// store in one step before telling anyone; watch events follow one by one.
func ExampleRealFIFO_atomic() {
	q := deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true})

	_ = q.Replace([]any{pod("web", "1"), pod("db", "1")}, "1")
	_ = q.Update(pod("web", "2"))
	_ = q.Resync()

	for range 3 {
		_, _ = q.Pop(func(deltas deltafifo.Deltas, isInInitialList bool) error {
			d := deltas.Newest()
			switch info := d.Object.(type) {
			case deltafifo.ReplacedAllInfo:
				fmt.Printf("pop: ReplacedAll at resourceVersion %s, %d objects (initial list: %v)\n",
					info.ResourceVersion, len(info.Objects), isInInitialList)
			case deltafifo.SyncAllInfo:
				fmt.Println("pop: SyncAll: re-deliver the whole store")
			default:
				fmt.Printf("pop: %s (initial list: %v)\n", describe(*d), isInInitialList)
			}
			return nil
		})
	}
	fmt.Println("synced:", q.HasSynced())
	// Output:
	// pop: ReplacedAll at resourceVersion 1, 2 objects (initial list: true)
	// pop: Updated web@2 (initial list: false)
	// pop: SyncAll: re-deliver the whole store
	// synced: true
}

// PopBatch hands out a run of deltas for distinct objects in one call, for
// the consumer to apply under one store lock; a second delta for an object
// already in the run starts the next batch.
func ExampleRealFIFO_PopBatch() {
	q := deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true})
	_ = q.Add(pod("web", "1"))
	_ = q.Add(pod("db", "2"))
	_ = q.Update(pod("web", "3"))

	for range 2 {
		_ = q.PopBatch(func(batch []deltafifo.Delta, _ bool) error {
			fmt.Printf("batch of %d:", len(batch))
			for _, d := range batch {
				fmt.Printf(" %s;", describe(d))
			}
			fmt.Println()
			return nil
		}, func(deltas deltafifo.Deltas, _ bool) error {
			fmt.Println("single:", describe(deltas[0]))
			return nil
		})
	}
	// Output:
	// batch of 2: Added web@1; Added db@2;
	// single: Updated web@3
}

// Queued shows what a queue holds, in the order Pop will take it. The same
// four changes make two keys in a DeltaFIFO, each with its deltas, and a line
// of four deltas in a RealFIFO.
func ExampleDeltaFIFO_Queued() {
	classic := deltafifo.New(deltafifo.Options{})
	inOrder := deltafifo.NewRealFIFO(deltafifo.Options{})
	for _, q := range []deltafifo.Queue{classic, inOrder} {
		_ = q.Add(pod("web", "1"))
		_ = q.Add(pod("db", "2"))
		_ = q.Update(pod("web", "3"))
		_ = q.Delete(pod("db", "4"))
	}

	fmt.Println("DeltaFIFO:")
	for _, deltas := range classic.Queued() {
		key, _ := classic.KeyOf(deltas)
		fmt.Printf("  %s:", key)
		for _, d := range deltas {
			fmt.Printf(" [%s]", describe(d))
		}
		fmt.Println()
	}
	fmt.Println("RealFIFO:")
	for _, d := range inOrder.Queued() {
		fmt.Printf("  %s\n", describe(d))
	}
	// Output:
	// DeltaFIFO:
	//   default/web: [Added web@1] [Updated web@3]
	//   default/db: [Added db@2] [Deleted db@4]
	// RealFIFO:
	//   Added web@1
	//   Added db@2
	//   Updated web@3
	//   Deleted db@4
}

// The DeltaFIFO example's events and a deletion, through the classic FIFO,
// the DeltaFIFO's ancestor: each key holds only its newest object. web is
// popped once, at version 4; db's deletion leaves nothing to pop, so the
// consumer never learns that db is gone. An informer must remove db from its
// cache and tell its delete handlers: that is why it uses deltas.
func ExampleFIFO() {
	q := deltafifo.NewFIFO(nil)

	_ = q.Replace([]any{pod("web", "1"), pod("db", "1")}, "1")
	_ = q.Update(pod("web", "2"))
	_ = q.Add(pod("cache", "3"))
	_ = q.Update(pod("web", "4"))
	_ = q.Delete(pod("db", "5"))
	fmt.Println("queued keys:", q.ListKeys())

	for len(q.ListKeys()) > 0 {
		_, _ = q.Pop(func(obj any, isInInitialList bool) error {
			p := obj.(metav1.Object)
			fmt.Printf("pop: %s@%s (initial list: %v)\n", p.GetName(), p.GetResourceVersion(), isInInitialList)
			return nil
		})
	}
	fmt.Println("synced:", q.HasSynced())
	// Output:
	// queued keys: [default/web default/cache]
	// pop: web@4 (initial list: true)
	// pop: cache@3 (initial list: false)
	// synced: true
}

// A Heap pops the least object first, by the LessFunc it was given, here the
// earliest deadline. Adding an object whose key is held moves it to its new
// place.
func ExampleHeap() {
	type job struct {
		name     string
		deadline int
	}
	byName := func(obj any) (string, error) { return obj.(job).name, nil }
	earliest := func(a, b any) bool { return a.(job).deadline < b.(job).deadline }
	h := deltafifo.NewHeap(byName, earliest)

	_ = h.Add(job{"backup", 30})
	_ = h.Add(job{"report", 10})
	_ = h.Add(job{"cleanup", 20})
	_ = h.Update(job{"backup", 5}) // moved ahead of the others

	for len(h.ListKeys()) > 0 {
		obj, _ := h.Pop()
		fmt.Printf("pop: %s (deadline %d)\n", obj.(job).name, obj.(job).deadline)
	}
	// Output:
	// pop: backup (deadline 5)
	// pop: report (deadline 10)
	// pop: cleanup (deadline 20)
}
