package deltafifo_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// task is what the heap tests queue: a name (its key) and a priority, the
// lowest popped first.
type task struct {
	name     string
	priority int
}

func (t task) String() string { return fmt.Sprintf("%s:%d", t.name, t.priority) }

func taskKey(obj any) (string, error) {
	t, ok := obj.(task)
	if !ok {
		return "", fmt.Errorf("not a task: %T", obj)
	}
	return t.name, nil
}

func lowerPriority(a, b any) bool { return a.(task).priority < b.(task).priority }

func newTaskHeap() *deltafifo.Heap { return deltafifo.NewHeap(taskKey, lowerPriority) }

// heapChecked fails the test on err or on a broken heap invariant: call it
// around every step.
func heapChecked(t *testing.T, h *deltafifo.Heap, err error) {
	t.Helper()
	require.NoError(t, err)
	require.NoError(t, deltafifo.CheckHeapInvariants(h))
}

// heapPopAll pops until the heap is empty, checking the invariants after
// every Pop.
func heapPopAll(t *testing.T, h *deltafifo.Heap) []string {
	t.Helper()
	var out []string
	for len(h.ListKeys()) > 0 {
		o, err := h.Pop()
		heapChecked(t, h, err)
		out = append(out, o.(task).String())
	}
	return out
}

// TestHeapPopsInLessOrder: whatever order objects arrive in, Pop hands them
// out smallest first, and the heap order holds after every step.
// Diagram: not on the informer's path. client-go: Heap.Add, Heap.Pop (TestHeapBasic)
func TestHeapPopsInLessOrder(t *testing.T) {
	h := newTaskHeap()
	priorities := rand.New(rand.NewPCG(1, 2)).Perm(50)

	for _, p := range priorities {
		heapChecked(t, h, h.Add(task{name: fmt.Sprint("t", p), priority: p}))
	}
	var got []int
	for range priorities {
		o, err := h.Pop()
		heapChecked(t, h, err)
		got = append(got, o.(task).priority)
	}

	t.Logf("added in the order %v, popped %v", priorities[:8], got[:8])
	assert.True(t, slices.IsSorted(got), "popped out of order: %v", got)
	assert.Len(t, got, len(priorities))
}

// TestHeapUpdateMovesAnObjectToItsNewPlace: adding an object whose key is
// held replaces the object and moves it, towards the head or away from it.
// Diagram: not on the informer's path. client-go: Heap.Update (TestHeap_Update, TestHeap_Add)
func TestHeapUpdateMovesAnObjectToItsNewPlace(t *testing.T) {
	h := newTaskHeap()
	for _, tk := range []task{{"foo", 10}, {"bar", 1}, {"bal", 31}, {"baz", 11}} {
		heapChecked(t, h, h.Add(tk))
	}

	heapChecked(t, h, h.Update(task{"baz", 0}))
	heapChecked(t, h, h.Update(task{"bar", 100}))
	heapChecked(t, h, h.Add(task{"foo", 40}))

	got, exists, err := h.GetByKey("foo")
	require.NoError(t, err)
	assert.True(t, exists)
	assert.Equal(t, task{"foo", 40}, got)
	assert.Equal(t, []string{"baz:0", "bal:31", "foo:40", "bar:100"}, heapPopAll(t, h))
}

// TestHeapAddIfNotPresentKeepsTheHeldObject: AddIfNotPresent adds a new key
// but leaves a held one as it is, so a consumer retrying what it popped
// cannot overwrite a newer version.
// Diagram: not on the informer's path. client-go: Heap.AddIfNotPresent (TestHeap_AddIfNotPresent)
func TestHeapAddIfNotPresentKeepsTheHeldObject(t *testing.T) {
	h := newTaskHeap()
	heapChecked(t, h, h.AddIfNotPresent(task{"foo", 10}))
	heapChecked(t, h, h.AddIfNotPresent(task{"bar", 1}))

	heapChecked(t, h, h.AddIfNotPresent(task{"foo", 0}))

	assert.ElementsMatch(t, []string{"foo", "bar"}, h.ListKeys())
	assert.Equal(t, []string{"bar:1", "foo:10"}, heapPopAll(t, h))
}

// TestHeapDeleteRemovesFromAnyPlace: Delete takes an object out by key,
// whatever its place (head, tail, middle), and only its key matters;
// deleting a key the heap does not hold is an error and changes nothing.
// Diagram: not on the informer's path. client-go: Heap.Delete (TestHeap_Delete)
func TestHeapDeleteRemovesFromAnyPlace(t *testing.T) {
	h := newTaskHeap()
	for p := range 9 {
		heapChecked(t, h, h.Add(task{fmt.Sprint("t", p), p}))
	}

	heapChecked(t, h, h.Delete(task{"t0", 999}))
	heapChecked(t, h, h.Delete(task{"t8", 0}))
	heapChecked(t, h, h.Delete(task{"t4", 0}))
	missing := h.Delete(task{"t4", 0})

	t.Logf("t0..t8; Delete t0 (head), t8, t4; Delete t4 again: %v", missing)
	assert.ErrorContains(t, missing, `"t4"`)
	require.NoError(t, deltafifo.CheckHeapInvariants(h))
	assert.Equal(t, []string{"t1:1", "t2:2", "t3:3", "t5:5", "t6:6", "t7:7"}, heapPopAll(t, h))
}

// TestHeapBulkAddIsAllOrNothing: BulkAdd adds a whole list under one lock;
// if one object cannot be keyed, it adds none of them.
// Diagram: not on the informer's path. client-go: Heap.BulkAdd (TestHeap_BulkAdd)
func TestHeapBulkAddIsAllOrNothing(t *testing.T) {
	h := newTaskHeap()

	heapChecked(t, h, h.BulkAdd([]any{task{"c", 3}, task{"a", 1}, task{"b", 2}, task{"a", 4}}))
	err := h.BulkAdd([]any{task{"d", 0}, "not a task"})

	var keyErr indexer.KeyError
	assert.ErrorAs(t, err, &keyErr)
	_, exists, _ := h.GetByKey("d")
	assert.False(t, exists, "a failed BulkAdd adds nothing")
	assert.Equal(t, []string{"b:2", "c:3", "a:4"}, heapPopAll(t, h))
}

// TestHeapCloseRefusesAddsAndWakesPop: Pop waits on an empty heap; Close
// wakes it with ErrFIFOClosed, and from then on the adds fail. What is
// still held at Close is handed out first.
// Diagram: not on the informer's path. client-go: Heap.Close (TestHeapEmptyPop, TestHeapAddAfterClose)
func TestHeapCloseRefusesAddsAndWakesPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTaskHeap()
		result := make(chan error, 1)
		go func() {
			_, err := h.Pop()
			result <- err
		}()
		synctest.Wait()
		require.Empty(t, result, "Pop must wait while the heap is empty")
		heapChecked(t, h, h.Add(task{"a", 1}))
		synctest.Wait()
		require.NoError(t, <-result, "an Add wakes the waiting Pop")
		heapChecked(t, h, h.Add(task{"b", 2}))

		h.Close()
		addErrs := []error{h.Add(task{"c", 3}), h.AddIfNotPresent(task{"c", 3}), h.BulkAdd([]any{task{"c", 3}})}
		left, err1 := h.Pop()
		_, err2 := h.Pop()

		assert.True(t, h.IsClosed())
		for _, err := range addErrs {
			assert.ErrorIs(t, err, deltafifo.ErrFIFOClosed)
		}
		require.NoError(t, err1)
		assert.Equal(t, task{"b", 2}, left)
		assert.ErrorIs(t, err2, deltafifo.ErrFIFOClosed)
	})
}

// TestNewHeapPanicsWithoutLessFunc: a heap without an order is a
// programming error, caught at construction.
// Diagram: not on the informer's path. client-go: none (NewHeap would panic at the first comparison)
func TestNewHeapPanicsWithoutLessFunc(t *testing.T) {
	assert.PanicsWithValue(t, "deltafifo: NewHeap needs a LessFunc", func() { deltafifo.NewHeap(taskKey, nil) })
}
