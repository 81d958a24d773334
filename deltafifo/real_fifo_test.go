package deltafifo_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestRealFIFODeliversEveryDeltaInArrivalOrder: one line of deltas, one
// delta per Pop, nothing coalesced per key.
// Diagram: step 3. client-go: RealFIFO.Pop
func TestRealFIFODeliversEveryDeltaInArrivalOrder(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{})

	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "2")))
	checked(t, f, f.Update(obj("a", "3")))

	assert.Equal(t, []string{"default/a", "default/b"}, f.ListKeys())
	assert.Equal(t, []popped{
		{Deltas: []string{"Added a@1"}},
		{Deltas: []string{"Added b@2"}},
		{Deltas: []string{"Updated a@3"}},
	}, popAll(t, f, nil))
}

// TestRealFIFODeleteIsNeverIgnoredOrCollapsed: RealFIFO neither drops the
// delete of an unknown key nor merges repeated deletes.
// Diagram: step 2. client-go: RealFIFO.Delete
func TestRealFIFODeleteIsNeverIgnoredOrCollapsed(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{KnownObjects: newKnownStore()})

	checked(t, f, f.Delete(obj("a", "1")))
	checked(t, f, f.Delete(obj("a", "1")))

	assert.Equal(t, []popped{
		{Deltas: []string{"Deleted a@1"}},
		{Deltas: []string{"Deleted a@1"}},
	}, popAll(t, f, nil))
}

// TestRealFIFOReplaceQueuesTombstonesBeforeReplaced: deletions first (queued
// keys in order of appearance, then known keys in sorted order), then the
// listed objects in list order; no tombstone for a key already deleted.
// Diagram: step 2. client-go: RealFIFO.Replace (reconcileReplacement)
func TestRealFIFOReplaceQueuesTombstonesBeforeReplaced(t *testing.T) {
	store := newKnownStore(obj("k", "1"), obj("j", "1"), obj("a", "1"))
	f := deltafifo.NewRealFIFO(deltafifo.Options{KnownObjects: store})
	checked(t, f, f.Add(obj("x", "2")))
	checked(t, f, f.Update(obj("x", "3")))
	checked(t, f, f.Add(obj("y", "4")))
	checked(t, f, f.Delete(obj("y", "5")))

	checked(t, f, f.Replace([]any{obj("b", "6"), obj("a", "6")}, "6"))

	assert.Equal(t, []popped{
		{Deltas: []string{"Added x@2"}},
		{Deltas: []string{"Updated x@3"}},
		{Deltas: []string{"Added y@4"}},
		{Deltas: []string{"Deleted y@5"}},
		{Deltas: []string{"Deleted tombstone default/x (x@3)"}},
		{Deltas: []string{"Deleted tombstone default/j (j@1)"}},
		{Deltas: []string{"Deleted tombstone default/k (k@1)"}},
		{Deltas: []string{"Replaced b@6"}},
		{Deltas: []string{"Replaced a@6"}},
	}, popAll(t, f, nil))
}

// TestRealFIFOResyncOnlyKeysAbsentFromQueue: a key mentioned anywhere in the
// queue is not resynced.
// Diagram: step 2. client-go: RealFIFO.Resync
func TestRealFIFOResyncOnlyKeysAbsentFromQueue(t *testing.T) {
	store := newKnownStore(obj("c", "1"), obj("b", "1"), obj("a", "1"))
	f := deltafifo.NewRealFIFO(deltafifo.Options{KnownObjects: store})
	checked(t, f, f.Update(obj("b", "2")))

	checked(t, f, f.Resync())

	assert.Equal(t, []popped{
		{Deltas: []string{"Updated b@2"}},
		{Deltas: []string{"Sync a@1"}},
		{Deltas: []string{"Sync c@1"}},
	}, popAll(t, f, store))
}

// TestRealFIFOInitialListCountsDeltas: the initial list is the deltas the
// first Replace queued, so a key listed twice is popped twice, both times
// in the initial list.
// Diagram: step 3. client-go: RealFIFO.Replace, RealFIFO.HasSynced
func TestRealFIFOInitialListCountsDeltas(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{})

	checked(t, f, f.Replace([]any{obj("a", "1"), obj("a", "2")}, "2"))
	checked(t, f, f.Add(obj("b", "3")))

	assert.Equal(t, []popped{
		{Deltas: []string{"Replaced a@1"}, Initial: true},
		{Deltas: []string{"Replaced a@2"}, Initial: true},
		{Deltas: []string{"Added b@3"}},
	}, popAll(t, f, nil))
	assert.True(t, f.HasSynced())
}
