package deltafifo_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
)

// feed runs the same producer calls against any queue.
func feed(t *testing.T, q deltafifo.Queue, steps []func(deltafifo.Queue) error) {
	t.Helper()
	for _, step := range steps {
		checked(t, q, step(q))
	}
}

// The event sequence docs/deltafifo.md walks through.
var (
	// Phase 1: the initial list, then watch events, one of them seen twice
	// and one for an object nobody ever saw.
	initialListAndWatch = []func(deltafifo.Queue) error{
		func(q deltafifo.Queue) error { return q.Replace([]any{obj("a", "1"), obj("b", "1")}, "1") },
		func(q deltafifo.Queue) error { return q.Update(obj("a", "2")) },
		func(q deltafifo.Queue) error { return q.Add(obj("c", "3")) },
		func(q deltafifo.Queue) error { return q.Delete(obj("b", "4")) },
		func(q deltafifo.Queue) error { return q.Delete(obj("b", "4")) },
		func(q deltafifo.Queue) error { return q.Update(obj("a", "5")) },
		func(q deltafifo.Queue) error { return q.Delete(obj("d", "6")) },
	}
	// Phase 2: e is created, then the watch breaks; while it is down e and c
	// are deleted and a is updated; the relist lists only a.
	relistAfterDisconnect = []func(deltafifo.Queue) error{
		func(q deltafifo.Queue) error { return q.Add(obj("e", "8")) },
		func(q deltafifo.Queue) error { return q.Replace([]any{obj("a", "9")}, "9") },
	}
)

// TestSameEventsClassicRealAndAtomicFIFO feeds the three designs the
// identical producer calls and pins the different streams their consumers
// see: the DeltaFIFO delivers one batch per key, coalesced, with the
// duplicate delete collapsed and the unknown delete dropped; the RealFIFO
// delivers every call as its own delta, in arrival order, with the relist's
// deletions ahead of its Replaced deltas; the atomic RealFIFO delivers the
// watch events as the RealFIFO does, and each list as one ReplacedAll, with
// no tombstones at all: its consumer compares the list with its store.
// Diagram: steps 2 and 3. client-go: DeltaFIFO vs RealFIFO (InOrderInformers) vs RealFIFO (AtomicFIFO)
func TestSameEventsClassicRealAndAtomicFIFO(t *testing.T) {
	classicStore, realStore, atomicStore := newKnownStore(), newKnownStore(), newKnownStore()
	classic := deltafifo.New(deltafifo.Options{KnownObjects: classicStore})
	real := deltafifo.NewRealFIFO(deltafifo.Options{KnownObjects: realStore})
	atomic := newAtomic()

	t.Log("1. The three queues get the initial list [a@1 b@1], then Update a@2, Add c@3, Delete b@4 twice, Update a@5, Delete d@6 (never seen)")
	for _, q := range []deltafifo.Queue{classic, real, atomic} {
		feed(t, q, initialListAndWatch)
	}
	classic1, real1, atomic1 := popAll(t, classic, classicStore), popAll(t, real, realStore), popAll(t, atomic, atomicStore)
	t.Log("2. Add e@8; the watch breaks; while it is down e and c are deleted and a updated; the relist lists only a@9")
	for _, q := range []deltafifo.Queue{classic, real, atomic} {
		feed(t, q, relistAfterDisconnect)
	}
	classic2, real2, atomic2 := popAll(t, classic, classicStore), popAll(t, real, realStore), popAll(t, atomic, atomicStore)

	assert.Equal(t, []popped{
		{Deltas: []string{"Replaced a@1", "Updated a@2", "Updated a@5"}, Initial: true},
		{Deltas: []string{"Replaced b@1", "Deleted b@4"}, Initial: true},
		{Deltas: []string{"Added c@3"}},
	}, classic1)
	assert.Equal(t, []popped{
		{Deltas: []string{"Replaced a@1"}, Initial: true},
		{Deltas: []string{"Replaced b@1"}, Initial: true},
		{Deltas: []string{"Updated a@2"}},
		{Deltas: []string{"Added c@3"}},
		{Deltas: []string{"Deleted b@4"}},
		{Deltas: []string{"Deleted b@4"}},
		{Deltas: []string{"Updated a@5"}},
		{Deltas: []string{"Deleted d@6"}},
	}, real1)
	assert.Equal(t, []popped{
		{Deltas: []string{"Added e@8", "Deleted tombstone default/e (e@8)"}},
		{Deltas: []string{"Replaced a@9"}},
		{Deltas: []string{"Deleted tombstone default/c (c@3)"}},
	}, classic2)
	assert.Equal(t, []popped{
		{Deltas: []string{"Added e@8"}},
		{Deltas: []string{"Deleted tombstone default/e (e@8)"}},
		{Deltas: []string{"Deleted tombstone default/c (c@3)"}},
		{Deltas: []string{"Replaced a@9"}},
	}, real2)
	assert.Equal(t, []popped{
		{Deltas: []string{"ReplacedAll @1 [a@1 b@1]"}, Initial: true},
		{Deltas: []string{"Updated a@2"}},
		{Deltas: []string{"Added c@3"}},
		{Deltas: []string{"Deleted b@4"}},
		{Deltas: []string{"Deleted b@4"}},
		{Deltas: []string{"Updated a@5"}},
		{Deltas: []string{"Deleted d@6"}},
	}, atomic1)
	assert.Equal(t, []popped{
		{Deltas: []string{"Added e@8"}},
		{Deltas: []string{"ReplacedAll @9 [a@9]"}},
	}, atomic2)
	require.Equal(t, []string{"default/a"}, classicStore.ListKeys())
	require.Equal(t, classicStore.ListKeys(), realStore.ListKeys(), "every consumer ends with the same store")
	require.Equal(t, classicStore.ListKeys(), atomicStore.ListKeys(), "every consumer ends with the same store")
	t.Logf("3. The three consumers end with the same store: %v", classicStore.ListKeys())
}
