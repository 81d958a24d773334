package workqueue

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFIFOKeepsItsBufferWhileTheLengthSwings: a queue whose length swings
// between empty and a few hundred items (workers keeping up with a producer)
// keeps its buffer instead of reallocating on every swing; items come out in
// order throughout.
// Diagram: steps 7, 8. client-go: Typed.queue, a slice that append regrows.
func TestFIFOKeepsItsBufferWhileTheLengthSwings(t *testing.T) {
	var f fifo[int]
	next, want, outOfOrder := 0, 0, 0
	swing := func() {
		for range 300 {
			f.push(next)
			next++
		}
		for f.len() > 0 {
			if f.pop() != want {
				outOfOrder++
			}
			want++
		}
	}
	swing()
	size := len(f.buf)

	allocs := testing.AllocsPerRun(20, swing)

	t.Logf("buffer of %d slots; allocations per swing 0 -> 300 -> 0: %v", size, allocs)
	assert.Zero(t, allocs)
	assert.Equal(t, size, len(f.buf))
	assert.Zero(t, outOfOrder)
}

// TestFIFOGivesMemoryBackAfterABurst: once a burst has drained and the queue
// stays short, the buffer halves window after window down to its floor.
// Diagram: steps 7, 8. client-go: Typed.queue keeps the slice it grew.
func TestFIFOGivesMemoryBackAfterABurst(t *testing.T) {
	var f fifo[int]
	for i := range 10_000 {
		f.push(i)
	}
	burst := len(f.buf)
	for f.len() > 0 {
		f.pop()
	}

	for i := range 100_000 { // a trickle: one item in, one out
		f.push(i)
		require.Equal(t, i, f.pop())
	}

	t.Logf("buffer after a burst of 10,000: %d slots; after a long trickle: %d", burst, len(f.buf))
	assert.Equal(t, 16384, burst)
	assert.Equal(t, 4*fifoMinSize, len(f.buf))
}
