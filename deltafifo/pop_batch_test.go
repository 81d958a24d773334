package deltafifo_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestPopBatchTakesARunOfDeltasForDistinctObjects: consecutive deltas for
// different objects go to processBatch together, in arrival order.
// Diagram: step 3. client-go: RealFIFO.PopBatch
func TestPopBatchTakesARunOfDeltasForDistinctObjects(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "2")))
	checked(t, f, f.Delete(obj("c", "3")))

	assert.Equal(t, []batchPopped{
		{Batch: true, Deltas: []string{"Added a@1", "Added b@2", "Deleted c@3"}},
	}, popAllBatches(t, f, nil))
}

// TestPopBatchEndsBeforeASecondDeltaForTheSameObject: a batch holds each
// object once, so the consumer can apply it in one step without caring about
// order inside it; the second delta for a starts the next batch.
// Diagram: step 3. client-go: RealFIFO.PopBatch
func TestPopBatchEndsBeforeASecondDeltaForTheSameObject(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "2")))
	checked(t, f, f.Update(obj("a", "3")))
	checked(t, f, f.Add(obj("c", "4")))

	assert.Equal(t, []batchPopped{
		{Batch: true, Deltas: []string{"Added a@1", "Added b@2"}},
		{Batch: true, Deltas: []string{"Updated a@3", "Added c@4"}},
	}, popAllBatches(t, f, nil))
}

// TestPopBatchHandsWholeStoreDeltasAndLoneDeltasToProcessSingle: a
// ReplacedAll or SyncAll is about the whole store and always travels alone;
// so does a delta with no batchable neighbour. Each goes to processSingle as
// a one-element Deltas, exactly as Pop would hand it.
// Diagram: step 3. client-go: RealFIFO.PopBatch (batchable delta types)
func TestPopBatchHandsWholeStoreDeltasAndLoneDeltasToProcessSingle(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Replace([]any{obj("a", "2"), obj("b", "2")}, "2"))
	checked(t, f, f.Update(obj("b", "3")))
	checked(t, f, f.Resync())

	assert.Equal(t, []batchPopped{
		{Deltas: []string{"Added a@1"}},
		{Deltas: []string{"ReplacedAll @2 [a@2 b@2]"}},
		{Deltas: []string{"Updated b@3"}},
		{Deltas: []string{"SyncAll (the whole store)"}},
	}, popAllBatches(t, f, nil))
}

// TestPopBatchEndsAtTheEndOfTheInitialList: isInInitialList is one value
// for the whole batch, so a batch never mixes listed objects with later
// events; HasSynced turns true only after the batch holding the last listed
// object has been processed.
// Diagram: step 3. client-go: RealFIFO.PopBatch (initialPopulationCount)
func TestPopBatchEndsAtTheEndOfTheInitialList(t *testing.T) {
	store := newKnownStore()
	f := deltafifo.NewRealFIFO(deltafifo.Options{KnownObjects: store})
	checked(t, f, f.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
	checked(t, f, f.Add(obj("c", "2")))
	checked(t, f, f.Add(obj("d", "3")))
	var syncedDuringProcess bool

	err := f.PopBatch(func(ds []deltafifo.Delta, initial bool) error {
		assert.Equal(t, []string{"Replaced a@1", "Replaced b@1"}, showAll(ds))
		assert.True(t, initial)
		syncedDuringProcess = f.HasSynced()
		return nil
	}, func(deltafifo.Deltas, bool) error { return errors.New("unexpected single") })
	checked(t, f, err)

	assert.False(t, syncedDuringProcess)
	assert.True(t, f.HasSynced())
	assert.Equal(t, []batchPopped{
		{Batch: true, Deltas: []string{"Added c@2", "Added d@3"}},
	}, popAllBatches(t, f, store))
}

// TestPopBatchTakesAtMostTheBatchSize: client-go's 1,000, and a lowered
// size for the same rule on a small scale.
// Diagram: step 3. client-go: RealFIFO.PopBatch (defaultBatchSize)
func TestPopBatchTakesAtMostTheBatchSize(t *testing.T) {
	big := newAtomic()
	for i := range deltafifo.DefaultBatchSize + 1 {
		checked(t, big, big.Add(obj(fmt.Sprintf("o%04d", i), "1")))
	}
	small := newAtomic()
	deltafifo.SetBatchSize(small, 2)
	for _, name := range []string{"a", "b", "c"} {
		checked(t, small, small.Add(obj(name, "1")))
	}

	bigPops := popAllBatches(t, big, nil)
	smallPops := popAllBatches(t, small, nil)

	require.Len(t, bigPops, 2)
	assert.Len(t, bigPops[0].Deltas, 1000)
	assert.Equal(t, batchPopped{Deltas: []string{"Added o1000@1"}}, bigPops[1])
	assert.Equal(t, []batchPopped{
		{Batch: true, Deltas: []string{"Added a@1", "Added b@1"}},
		{Deltas: []string{"Added c@1"}},
	}, smallPops)
}

// TestPopBatchRunsUnderTheLockUnlessUnlockWhileProcessing: like Pop.
// Diagram: step 3. client-go: RealFIFO.PopBatch
func TestPopBatchRunsUnderTheLockUnlessUnlockWhileProcessing(t *testing.T) {
	for _, unlock := range []bool{false, true} {
		f := deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true, UnlockWhileProcessing: unlock})
		checked(t, f, f.Add(obj("a", "1")))
		checked(t, f, f.Add(obj("b", "1")))
		var locked bool

		err := f.PopBatch(func([]deltafifo.Delta, bool) error {
			locked = deltafifo.IsLocked(f)
			return nil
		}, func(deltafifo.Deltas, bool) error { return nil })

		checked(t, f, err)
		assert.Equal(t, !unlock, locked, "UnlockWhileProcessing=%v", unlock)
	}
}

// TestPopBatchReturnsProcessErrorsAndDoesNotRequeue: as with Pop, the
// consumer owns what it took, whichever function it went to.
// Diagram: step 3. client-go: RealFIFO.PopBatch
func TestPopBatchReturnsProcessErrorsAndDoesNotRequeue(t *testing.T) {
	batchFailed, singleFailed := errors.New("batch failed"), errors.New("single failed")
	f := newAtomic()
	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "1")))
	checked(t, f, f.Update(obj("b", "2")))
	fail := func() error {
		return f.PopBatch(func([]deltafifo.Delta, bool) error { return batchFailed },
			func(deltafifo.Deltas, bool) error { return singleFailed })
	}

	err1, err2 := fail(), fail()

	assert.ErrorIs(t, err1, batchFailed)
	assert.ErrorIs(t, err2, singleFailed)
	assert.Zero(t, deltafifo.QueueLen(f))
	require.NoError(t, deltafifo.CheckInvariants(f))
}

// TestPopBatchMisuseAndClose: a nil function is an error, not a panic, and
// loses nothing; a closed queue hands out what it holds, then ErrFIFOClosed.
// Diagram: step 3. client-go: RealFIFO.PopBatch
func TestPopBatchMisuseAndClose(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Add(obj("a", "1")))
	none := func(deltafifo.Deltas, bool) error { return nil }

	errNil := f.PopBatch(nil, none)
	f.Close()
	got := popBatch(t, f, nil)
	errClosed := f.PopBatch(func([]deltafifo.Delta, bool) error { return nil }, none)

	assert.ErrorContains(t, errNil, "deltafifo: Pop needs a process function")
	assert.Equal(t, batchPopped{Deltas: []string{"Added a@1"}}, got)
	assert.ErrorIs(t, errClosed, deltafifo.ErrFIFOClosed)
}
