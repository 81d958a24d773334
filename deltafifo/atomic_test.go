package deltafifo_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestAtomicReplaceQueuesTheWholeListAsOneReplacedAll: a relist is one
// delta carrying the list's resourceVersion and its objects in list order;
// it concerns no one key, so ListKeys does not show it.
// Diagram: step 2. client-go: RealFIFO.Replace (AtomicEvents)
func TestAtomicReplaceQueuesTheWholeListAsOneReplacedAll(t *testing.T) {
	f := newAtomic()

	checked(t, f, f.Replace([]any{obj("b", "7"), obj("a", "7")}, "7"))

	assert.Empty(t, f.ListKeys())
	assert.Equal(t, 1, deltafifo.QueueLen(f))
	assert.Equal(t, []popped{
		{Deltas: []string{"ReplacedAll @7 [b@7 a@7]"}, Initial: true},
	}, popAll(t, f, nil))
}

// TestAtomicReplaceQueuesNoTombstones: the queue does not compare the list
// with anything. A queued object the list lacks gets no tombstone here; the
// consumer finds the deletion when it compares the list with its store.
// Diagram: step 2. client-go: RealFIFO.Replace (AtomicEvents)
func TestAtomicReplaceQueuesNoTombstones(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Add(obj("x", "1")))

	checked(t, f, f.Replace([]any{obj("a", "2")}, "2"))

	assert.Equal(t, []popped{
		{Deltas: []string{"Added x@1"}},
		{Deltas: []string{"ReplacedAll @2 [a@2]"}},
	}, popAll(t, f, nil))
}

// TestAtomicResyncQueuesOneSyncAllInLine: a resync is one delta, queued
// behind whatever is waiting, even for keys that have changes queued: the
// consumer resyncs from its store when it reaches the SyncAll, by which time
// the store holds those changes, so nothing stale can be re-delivered.
// Diagram: step 2. client-go: RealFIFO.Resync (AtomicEvents)
func TestAtomicResyncQueuesOneSyncAllInLine(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Update(obj("a", "2")))

	checked(t, f, f.Resync())
	checked(t, f, f.Resync())

	assert.Equal(t, []popped{
		{Deltas: []string{"Updated a@2"}},
		{Deltas: []string{"SyncAll (the whole store)"}},
		{Deltas: []string{"SyncAll (the whole store)"}},
	}, popAll(t, f, nil))
}

// TestAtomicInitialListIsOneDelta: the first Replace queues one delta, so
// HasSynced turns true once that one delta has been processed, even for an
// empty list. (A per-object queue has nothing to wait for after an empty
// first list.)
// Diagram: step 3. client-go: RealFIFO.Replace (initialPopulationCount)
func TestAtomicInitialListIsOneDelta(t *testing.T) {
	for _, list := range [][]any{nil, {obj("a", "1"), obj("b", "1")}} {
		f := newAtomic()
		checked(t, f, f.Replace(list, "1"))
		checked(t, f, f.Add(obj("c", "2")))
		var syncedDuringProcess bool

		_, err := f.Pop(func(_ deltafifo.Deltas, initial bool) error {
			require.True(t, initial)
			syncedDuringProcess = f.HasSynced()
			return nil
		})
		checked(t, f, err)

		assert.False(t, syncedDuringProcess, "not synced while the list is processed")
		assert.True(t, f.HasSynced(), "%d listed objects: one delta, then synced", len(list))
		assert.Equal(t, []popped{{Deltas: []string{"Added c@2"}}}, popAll(t, f, nil))
	}
}

// TestAtomicReplaceIsAllOrNothing: an object that cannot be keyed or
// transformed fails the whole list; nothing is queued, and the queue is not
// populated.
// Diagram: step 2. client-go: RealFIFO.Replace (AtomicEvents)
func TestAtomicReplaceIsAllOrNothing(t *testing.T) {
	boom := errors.New("boom")
	f := deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true, Transformer: func(o any) (any, error) {
		if o.(*metav1.PartialObjectMetadata).Name == "bad" {
			return nil, boom
		}
		return markTransformed(o), nil
	}})

	err := f.Replace([]any{obj("a", "1"), obj("bad", "1")}, "1")
	keyErr := f.Replace([]any{obj("a", "1"), "not an object"}, "1")

	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, `deltafifo: replace: item 1 ("default/bad")`)
	assert.ErrorContains(t, keyErr, "deltafifo: replace: item 1")
	assert.Zero(t, deltafifo.QueueLen(f))
	assert.False(t, f.HasSynced())
	require.NoError(t, deltafifo.CheckInvariants(f))
}

// TestAtomicReplaceTransformsEachListedObjectOnce: the transformer runs on
// every listed object before it is queued; the queued list is a new slice, so
// the producer's list can be reused.
// Diagram: step 2. client-go: RealFIFO.addReplaceToItemsLocked
func TestAtomicReplaceTransformsEachListedObjectOnce(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true, Transformer: func(o any) (any, error) {
		return markTransformed(o), nil
	}})
	list := []any{obj("a", "1"), obj("b", "1")}

	checked(t, f, f.Replace(list, "1"))
	list[0] = obj("changed", "9")

	assert.Equal(t, []popped{
		{Deltas: []string{"ReplacedAll @1 [a@1 t1 b@1 t1]"}, Initial: true},
	}, popAll(t, f, nil))
}

// TestNewRealFIFORefusesContradictoryModes: client-go panics on the same
// combinations. An atomic queue must not be given the consumer's store (it
// would never read it, and a caller passing it expects tombstones that never
// come); unlocking while processing is safe only in atomic mode; a
// DeltaFIFO has neither mode.
// Diagram: steps 2-3. client-go: NewRealFIFOWithOptions
func TestNewRealFIFORefusesContradictoryModes(t *testing.T) {
	assert.PanicsWithValue(t,
		"deltafifo: NewRealFIFO: AtomicEvents needs a nil KnownObjects: the consumer, not the queue, compares a list with its store",
		func() { deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true, KnownObjects: newKnownStore()}) })
	assert.PanicsWithValue(t, "deltafifo: NewRealFIFO: UnlockWhileProcessing needs AtomicEvents",
		func() {
			deltafifo.NewRealFIFO(deltafifo.Options{UnlockWhileProcessing: true, KnownObjects: newKnownStore()})
		})
	assert.Panics(t, func() { deltafifo.New(deltafifo.Options{AtomicEvents: true}) })
	assert.Panics(t, func() { deltafifo.New(deltafifo.Options{UnlockWhileProcessing: true}) })
	assert.NotPanics(t, func() {
		deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true, UnlockWhileProcessing: true})
	})
}

// TestUnlockWhileProcessingLetsTheProducerQueueDuringProcess: the process
// function runs without the lock, so the producer can queue meanwhile (here
// from inside process itself, which would deadlock on a locked queue); with
// two full batches waiting, the lock is kept, so a slow consumer slows the
// producer down instead of letting the queue grow without bound.
// Diagram: step 3. client-go: RealFIFO.whileProcessing_locked (kubernetes/kubernetes#136264)
func TestUnlockWhileProcessingLetsTheProducerQueueDuringProcess(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{AtomicEvents: true, UnlockWhileProcessing: true})
	deltafifo.SetBatchSize(f, 2)
	checked(t, f, f.Replace([]any{obj("a", "1")}, "1"))
	var locked []bool
	record := func(deltafifo.Deltas, bool) error {
		locked = append(locked, deltafifo.IsLocked(f))
		return nil
	}

	_, err := f.Pop(func(ds deltafifo.Deltas, initial bool) error {
		require.NoError(t, f.Add(obj("b", "2")), "queued while the list is processed")
		return record(ds, initial)
	})
	checked(t, f, err)
	for _, name := range []string{"c", "d", "e", "f"} {
		checked(t, f, f.Add(obj(name, "3")))
	}
	for deltafifo.QueueLen(f) > 0 {
		_, err := f.Pop(record)
		checked(t, f, err)
	}

	// Waiting while each delta is processed: 0, then b..f leave 4, 3, 2, 1, 0.
	assert.Equal(t, []bool{false, true, false, false, false, false}, locked,
		"locked only while 4 = two batches of 2 were waiting")
	assert.False(t, deltafifo.IsLocked(f))
}
