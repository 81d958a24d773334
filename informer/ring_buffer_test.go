package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRingBufferKeepsOrderAcrossGrowthAndWrap writes and reads in an
// interleaving that wraps the head around and forces the buffer to double
// while wrapped; the values come out in the order they went in, and the
// invariant holds after every operation.
//
// Diagram: step 6. client-go: buffer.RingGrowing.
func TestRingBufferKeepsOrderAcrossGrowthAndWrap(t *testing.T) {
	r := newRingBuffer[int](4)
	next, want := 0, 0

	for round := range 50 {
		for range round%7 + 1 {
			r.WriteOne(next)
			next++
			require.NoError(t, r.checkInvariants())
		}
		for range round % 5 {
			v, ok := r.ReadOne()
			if !ok {
				break
			}
			assert.Equal(t, want, v)
			want++
			require.NoError(t, r.checkInvariants())
		}
	}
	for {
		v, ok := r.ReadOne()
		if !ok {
			break
		}
		assert.Equal(t, want, v)
		want++
	}

	assert.Equal(t, next, want)
	assert.Zero(t, r.Len())
}

// TestRingBufferReleasesMemoryAfterABurst grows a buffer far past the shrink
// threshold; once drained it holds no slice any more.
//
// Diagram: step 6. client-go: buffer.RingGrowing (which never shrinks).
func TestRingBufferReleasesMemoryAfterABurst(t *testing.T) {
	r := newRingBuffer[int](4)
	for i := range 5000 {
		r.WriteOne(i)
	}
	require.Greater(t, len(r.buf), shrinkThreshold)

	for range 5000 {
		_, ok := r.ReadOne()
		require.True(t, ok)
	}

	assert.Nil(t, r.buf)
	_, ok := r.ReadOne()
	assert.False(t, ok)
	r.WriteOne(7)
	v, ok := r.ReadOne()
	assert.True(t, ok)
	assert.Equal(t, 7, v)
}
