package deltafifo_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// fifoChecked fails the test on err or on a broken FIFO invariant: call it
// around every step.
func fifoChecked(t *testing.T, f *deltafifo.FIFO, err error) {
	t.Helper()
	require.NoError(t, err)
	require.NoError(t, deltafifo.CheckFIFOInvariants(f))
}

// showFIFO renders what a FIFO holds, in Pop order.
func showFIFO(f *deltafifo.FIFO) []string {
	var out []string
	for _, o := range f.Queued() {
		out = append(out, showObj(o))
	}
	return out
}

// fifoPopOne pops the head of a FIFO that must not be empty, rendered, with
// isInInitialList.
func fifoPopOne(t *testing.T, f *deltafifo.FIFO) popped {
	t.Helper()
	require.NotEmpty(t, f.ListKeys(), "fifoPopOne on an empty FIFO would block")
	var got popped
	o, err := f.Pop(func(o any, isInInitialList bool) error {
		got = popped{Deltas: []string{showObj(o)}, Initial: isInInitialList}
		return nil
	})
	fifoChecked(t, f, err)
	require.Equal(t, got.Deltas, []string{showObj(o)}, "Pop must return what it processed")
	t.Logf("FIFO pop: %v", got)
	return got
}

func fifoPopAll(t *testing.T, f *deltafifo.FIFO) []popped {
	t.Helper()
	var out []popped
	for len(f.ListKeys()) > 0 {
		out = append(out, fifoPopOne(t, f))
	}
	return out
}

// TestFIFOKeepsOnlyTheNewestStateInItsPlace: a key that is added again while
// it waits keeps its place in line and now holds only the newest object; the
// consumer gets that one, once.
// Diagram: step 2. client-go: FIFO.Add (TestFIFO_addUpdate, TestFIFO_detectLineJumpers)
func TestFIFOKeepsOnlyTheNewestStateInItsPlace(t *testing.T) {
	f := deltafifo.NewFIFO(nil)

	fifoChecked(t, f, f.Add(obj("a", "1")))
	fifoChecked(t, f, f.Add(obj("b", "1")))
	fifoChecked(t, f, f.Update(obj("a", "2")))
	fifoChecked(t, f, f.Add(obj("a", "3")))

	t.Logf("Add a@1, Add b@1, Update a@2, Add a@3: queued %v", showFIFO(f))
	assert.Equal(t, []string{"default/a", "default/b"}, f.ListKeys())
	assert.Equal(t, []string{"a@3", "b@1"}, showFIFO(f))
	assert.Equal(t, []popped{{Deltas: []string{"a@3"}}, {Deltas: []string{"b@1"}}}, fifoPopAll(t, f))
}

// TestFIFODeleteLeavesNothingToPop: a deletion takes the object out of the
// line and queues nothing, so the consumer never hears of it; an object
// added again after its deletion joins the end of the line. This is the
// information a DeltaFIFO keeps and a FIFO loses.
// Diagram: step 2. client-go: FIFO.Delete
func TestFIFODeleteLeavesNothingToPop(t *testing.T) {
	f := deltafifo.NewFIFO(nil)
	fifoChecked(t, f, f.Add(obj("a", "1")))
	fifoChecked(t, f, f.Add(obj("b", "1")))
	fifoChecked(t, f, f.Add(obj("c", "1")))

	fifoChecked(t, f, f.Delete(obj("a", "2")))
	fifoChecked(t, f, f.Delete(obj("never-seen", "2")))
	fifoChecked(t, f, f.Add(obj("a", "3")))

	t.Logf("Add a, b, c; Delete a; Delete an unknown object; Add a@3: queued %v", showFIFO(f))
	assert.Equal(t, []string{"b@1", "c@1", "a@3"}, showFIFO(f))
	fifoChecked(t, f, f.Delete(obj("c", "2")))
	assert.Equal(t, []popped{{Deltas: []string{"b@1"}}, {Deltas: []string{"a@3"}}}, fifoPopAll(t, f))
}

// TestFIFOReplaceDropsWhatTheListLacks: Replace makes the list the whole
// contents, in list order, the later object winning for a key listed
// twice; what the list lacks is dropped without a tombstone. A list with an
// object that cannot be keyed changes nothing.
// Diagram: step 2. client-go: FIFO.Replace (TestFIFO_addReplace)
func TestFIFOReplaceDropsWhatTheListLacks(t *testing.T) {
	f := deltafifo.NewFIFO(nil)
	fifoChecked(t, f, f.Add(obj("a", "1")))
	fifoChecked(t, f, f.Add(obj("c", "1")))

	fifoChecked(t, f, f.Replace([]any{obj("b", "2"), obj("a", "2"), obj("b", "3")}, "3"))
	err := f.Replace([]any{obj("d", "4"), "not an object"}, "4")

	t.Logf("Add a, c; Replace [b@2 a@2 b@3]: queued %v; a bad list: %v", showFIFO(f), err)
	var keyErr indexer.KeyError
	assert.ErrorAs(t, err, &keyErr)
	require.NoError(t, deltafifo.CheckFIFOInvariants(f))
	assert.Equal(t, []string{"b@3", "a@2"}, showFIFO(f))
}

// TestFIFOHasSyncedAfterTheInitialListIsProcessed: the keys of the first
// Replace are popped with isInInitialList set, and HasSynced turns true only
// once the process function of the last one has returned. An Add before any
// Replace means there is no initial list.
// Diagram: step 3. client-go: FIFO.HasSynced (TestFIFO_HasSynced)
func TestFIFOHasSyncedAfterTheInitialListIsProcessed(t *testing.T) {
	f := deltafifo.NewFIFO(nil)
	require.False(t, f.HasSynced(), "nothing has been listed yet")
	fifoChecked(t, f, f.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
	fifoChecked(t, f, f.Add(obj("c", "2")))

	first := fifoPopOne(t, f)
	syncedAfterFirst := f.HasSynced()
	var syncedDuringLast bool
	_, err := f.Pop(func(any, bool) error { syncedDuringLast = f.HasSynced(); return nil })
	fifoChecked(t, f, err)
	syncedAfterLast := f.HasSynced()
	third := fifoPopOne(t, f)

	assert.True(t, first.Initial)
	assert.False(t, syncedAfterFirst)
	assert.False(t, syncedDuringLast, "HasSynced must wait for the last initial object's process function")
	assert.True(t, syncedAfterLast)
	assert.False(t, third.Initial)

	early := deltafifo.NewFIFO(nil)
	fifoChecked(t, early, early.Add(obj("a", "1")))
	fifoChecked(t, early, early.Replace([]any{obj("b", "1")}, "1"))
	assert.True(t, early.HasSynced(), "an Add before any Replace means there is no initial list")
}

// TestFIFODeletingAnInitialKeyCountsItDelivered: a key of the initial list
// that is deleted before it is popped will never be popped, so it no longer
// holds up HasSynced; deleting a later key changes nothing.
// Diagram: step 3. client-go: FIFO.Pop skips keys deleted while queued, counting them
func TestFIFODeletingAnInitialKeyCountsItDelivered(t *testing.T) {
	f := deltafifo.NewFIFO(nil)
	fifoChecked(t, f, f.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
	fifoChecked(t, f, f.Add(obj("c", "2")))
	fifoChecked(t, f, f.Add(obj("d", "2")))

	fifoChecked(t, f, f.Delete(obj("b", "3")))
	fifoChecked(t, f, f.Delete(obj("c", "3")))
	pop := fifoPopOne(t, f)

	t.Logf("initial list [a b]; Add c, d; Delete b, c; pop %v: HasSynced %v", pop, f.HasSynced())
	assert.Equal(t, popped{Deltas: []string{"a@1"}, Initial: true}, pop)
	assert.True(t, f.HasSynced())
	assert.Equal(t, []string{"d@2"}, showFIFO(f))
}

// TestFIFOReplaceBeforeSyncBecomesTheInitialList: a relist that comes while
// the first list is still being delivered replaces it, and HasSynced waits
// for the new list instead.
// Diagram: step 3. client-go: FIFO.Replace keeps the old count, which can outnumber the queued keys
func TestFIFOReplaceBeforeSyncBecomesTheInitialList(t *testing.T) {
	f := deltafifo.NewFIFO(nil)
	fifoChecked(t, f, f.Replace([]any{obj("a", "1"), obj("b", "1"), obj("c", "1")}, "1"))
	fifoPopOne(t, f)

	fifoChecked(t, f, f.Replace([]any{obj("d", "2")}, "2"))
	syncedBefore := f.HasSynced()
	pop := fifoPopOne(t, f)

	assert.False(t, syncedBefore)
	assert.Equal(t, popped{Deltas: []string{"d@2"}, Initial: true}, pop)
	assert.True(t, f.HasSynced())
}

// TestFIFOCloseWakesPopAfterDraining: Pop waits on an empty FIFO; Close
// wakes it with ErrFIFOClosed. What is still queued at Close is handed out
// first.
// Diagram: step 3. client-go: FIFO.Close (TestFIFO_PopShouldUnblockWhenClosed)
func TestFIFOCloseWakesPopAfterDraining(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deltafifo.NewFIFO(nil)
		fifoChecked(t, f, f.Add(obj("a", "1")))
		fifoPopOne(t, f)
		result := make(chan error, 1)
		go func() {
			_, err := f.Pop(func(any, bool) error { return nil })
			result <- err
		}()
		synctest.Wait()
		require.Empty(t, result, "Pop must wait while the FIFO is empty")

		fifoChecked(t, f, f.Add(obj("b", "1")))
		synctest.Wait()
		require.NoError(t, <-result, "an Add wakes the waiting Pop")
		fifoChecked(t, f, f.Add(obj("c", "1")))
		f.Close()
		last := fifoPopOne(t, f)
		_, err := f.Pop(func(any, bool) error { return nil })

		assert.True(t, f.IsClosed())
		assert.Equal(t, []string{"c@1"}, last.Deltas)
		assert.ErrorIs(t, err, deltafifo.ErrFIFOClosed)
	})
}

// TestFIFOReportsBadInput: an object that cannot be keyed is an
// indexer.KeyError and changes nothing; Pop without a process function is
// an error, not a panic; a process error is returned and nothing is
// requeued.
// Diagram: steps 2 and 3. client-go: FIFO.Add, FIFO.Pop
func TestFIFOReportsBadInput(t *testing.T) {
	f := deltafifo.NewFIFO(nil)
	fifoChecked(t, f, f.Add(obj("a", "1")))
	failed := errors.New("handler failed")

	addErr := f.Add("not an object")
	deleteErr := f.Delete(42)
	_, nilErr := f.Pop(nil)
	o, processErr := f.Pop(func(any, bool) error { return failed })

	var keyErr indexer.KeyError
	assert.ErrorAs(t, addErr, &keyErr)
	assert.ErrorAs(t, deleteErr, &keyErr)
	assert.Error(t, nilErr)
	assert.ErrorIs(t, processErr, failed)
	assert.Equal(t, "a@1", showObj(o))
	assert.Empty(t, f.ListKeys(), "a failed process requeues nothing")
	require.NoError(t, deltafifo.CheckFIFOInvariants(f))
}
