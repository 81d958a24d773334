package deltafifo_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestDrainedQueueGivesItsMemoryBack checks that once the keys of a large
// initial list have all been popped, the queue no longer keeps a map and a
// line of keys sized for that list: Go maps never shrink by themselves, and
// an informer's queue lives as long as the informer.
// Diagram: step 3. client-go: DeltaFIFO keeps its items map at its peak size.
func TestDrainedQueueGivesItsMemoryBack(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})
	list := make([]any, 5000)
	for i := range list {
		list[i] = obj(fmt.Sprintf("pod-%d", i), "1")
	}
	require.NoError(t, f.Replace(list, "1"))
	peak, queueCap := deltafifo.Footprint(f)
	t.Logf("after Replace of %d objects: items peak %d, line of keys capacity %d", len(list), peak, queueCap)
	require.Equal(t, len(list), peak)

	noop := func(deltafifo.Deltas, bool) error { return nil }
	for i := range list {
		_, err := f.Pop(noop)
		require.NoError(t, err)
		if i%100 == 0 {
			require.NoError(t, deltafifo.CheckInvariants(f))
		}
	}
	peak, queueCap = deltafifo.Footprint(f)

	t.Logf("after popping them all: items peak %d, line of keys capacity %d", peak, queueCap)
	assert.LessOrEqual(t, peak, len(list)/16, "the items map was rebuilt small")
	assert.Zero(t, queueCap, "the line of keys was released")
	assert.True(t, f.HasSynced())
}

// TestAddPopAllocatesOnlyTheKeyAndDeltas checks that in steady state (each
// Add popped at once) the queue's own bookkeeping allocates nothing: the two
// allocations are the key the KeyFunc builds and the Deltas handed to the
// consumer.
// Diagram: steps 2 and 3. client-go: DeltaFIFO.queueActionLocked and Pop.
func TestAddPopAllocatesOnlyTheKeyAndDeltas(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})
	o := obj("web", "1")
	noop := func(deltafifo.Deltas, bool) error { return nil }

	allocs := testing.AllocsPerRun(1000, func() {
		_ = f.Add(o)
		_, _ = f.Pop(noop)
	})

	t.Logf("allocations per Add+Pop: %v", allocs)
	assert.Equal(t, 2.0, allocs)
	require.NoError(t, deltafifo.CheckInvariants(f))
}

// TestLongQueueKeepsOrderWhileReusingItsMemory checks the line of keys
// through pops and pushes interleaved, so that its popped prefix is slid
// away and reused: keys still come out in arrival order.
// Diagram: steps 2 and 3. client-go: DeltaFIFO.queue.
func TestLongQueueKeepsOrderWhileReusingItsMemory(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})
	var popped []string
	record := func(d deltafifo.Deltas, _ bool) error {
		popped = append(popped, d.Newest().Object.(interface{ GetName() string }).GetName())
		return nil
	}

	next := 0
	for round := range 50 {
		for range 7 {
			require.NoError(t, f.Add(obj(fmt.Sprintf("pod-%d", next), "1")))
			next++
		}
		for range 5 + round%3 {
			_, err := f.Pop(record)
			require.NoError(t, err)
		}
		require.NoError(t, deltafifo.CheckInvariants(f))
	}

	want := make([]string, len(popped))
	for i := range want {
		want[i] = fmt.Sprintf("pod-%d", i)
	}
	t.Logf("pushed %d keys, popped %d in order, %d still queued", next, len(popped), deltafifo.QueueLen(f))
	assert.Equal(t, want, popped)
	assert.Equal(t, next-len(popped), deltafifo.QueueLen(f))
}
