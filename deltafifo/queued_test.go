package deltafifo_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
)

// showQueued renders a DeltaFIFO's Queued: one line of deltas per key.
func showQueued(qs []deltafifo.Deltas) [][]string {
	out := make([][]string, len(qs))
	for i, ds := range qs {
		out[i] = showAll(ds)
	}
	return out
}

// TestDeltaFIFOQueuedShowsEachKeysDeltasInPopOrder checks that Queued shows
// one Deltas per key, keys in the order they first arrived, and that each
// Pop hands out exactly the head of what Queued showed.
// Diagram: steps 2 and 3. client-go: delta_fifo_test.go's listKeys and get (read the private queue and items).
func TestDeltaFIFOQueuedShowsEachKeysDeltasInPopOrder(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})
	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "2")))
	checked(t, f, f.Update(obj("a", "3")))
	checked(t, f, f.Delete(obj("b", "4")))

	queued := showQueued(f.Queued())

	t.Logf("Queued: %v", queued)
	require.Equal(t, [][]string{
		{"Added a@1", "Updated a@3"},
		{"Added b@2", "Deleted b@4"},
	}, queued)
	for len(queued) > 0 {
		assert.Equal(t, queued[0], popOne(t, f, nil).Deltas)
		queued = queued[1:]
		assert.Equal(t, queued, showQueued(f.Queued()))
	}
	assert.Empty(t, f.Queued())
}

// TestRealFIFOQueuedShowsEveryDeltaInPopOrder checks that a RealFIFO's
// Queued is one line of deltas, a key as often as it has deltas, and that
// each Pop hands out exactly its head.
// Diagram: steps 2 and 3. client-go: the_real_fifo_test.go's getItems (reads the private items).
func TestRealFIFOQueuedShowsEveryDeltaInPopOrder(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{})
	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "2")))
	checked(t, f, f.Update(obj("a", "3")))
	checked(t, f, f.Delete(obj("b", "4")))

	queued := showAll(f.Queued())

	t.Logf("Queued: %v", queued)
	require.Equal(t, []string{"Added a@1", "Added b@2", "Updated a@3", "Deleted b@4"}, queued)
	for len(queued) > 0 {
		assert.Equal(t, queued[:1], popOne(t, f, nil).Deltas)
		queued = queued[1:]
		assert.Equal(t, queued, showAll(f.Queued()))
	}
	assert.Empty(t, f.Queued())
}

// TestAtomicFIFOQueuedShowsAWholeRelistAsOneDelta checks that an atomic
// RealFIFO's Queued shows a relist as the one ReplacedAll delta it queues.
// Diagram: step 2. client-go: RealFIFO.Replace with AtomicFIFO (the_real_fifo_test.go reads items).
func TestAtomicFIFOQueuedShowsAWholeRelistAsOneDelta(t *testing.T) {
	f := newAtomic()
	checked(t, f, f.Add(obj("a", "1")))

	checked(t, f, f.Replace([]any{obj("b", "5"), obj("c", "5")}, "5"))

	assert.Equal(t, []string{"Added a@1", "ReplacedAll @5 [b@5 c@5]"}, showAll(f.Queued()))
}

// TestQueuedIsACopy checks that changing what Queued returned changes
// nothing queued, on both designs.
// Diagram: step 3. client-go: delta_fifo_test.go's getByKey (copies the deltas it returns).
func TestQueuedIsACopy(t *testing.T) {
	d := deltafifo.New(deltafifo.Options{})
	checked(t, d, d.Add(obj("a", "1")))
	r := deltafifo.NewRealFIFO(deltafifo.Options{})
	checked(t, r, r.Add(obj("a", "1")))

	d.Queued()[0][0].Type = deltafifo.Deleted
	r.Queued()[0].Type = deltafifo.Deleted

	assert.Equal(t, []string{"Added a@1"}, popOne(t, d, nil).Deltas)
	assert.Equal(t, []string{"Added a@1"}, popOne(t, r, nil).Deltas)
}

// TestKeyOfKeysEachDeltaOfRealFIFOQueued checks that KeyOf accepts a single
// Delta, so each entry of a RealFIFO's Queued can be keyed, a tombstone by
// its Key; a ReplacedAll delta is about no one object and has no key.
// Diagram: step 2. client-go: RealFIFO.keyOf (unwraps a Delta).
func TestKeyOfKeysEachDeltaOfRealFIFOQueued(t *testing.T) {
	f := deltafifo.NewRealFIFO(deltafifo.Options{KnownObjects: newKnownStore(obj("gone", "1"))})
	checked(t, f, f.Add(obj("a", "2")))
	checked(t, f, f.Replace([]any{obj("a", "3")}, "3"))

	var keys []string
	for _, d := range f.Queued() {
		key, err := f.KeyOf(d)
		require.NoError(t, err)
		keys = append(keys, string(d.Type)+" "+key)
	}
	_, atomicErr := newAtomic().KeyOf(deltafifo.Delta{Type: deltafifo.ReplacedAll, Object: deltafifo.ReplacedAllInfo{}})

	assert.Equal(t, []string{"Added default/a", "Deleted default/gone", "Replaced default/a"}, keys)
	assert.Error(t, atomicErr)
}
