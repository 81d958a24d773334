package workqueue_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/workqueue"
)

// TestParallelizeUntilDoesEveryPieceOnce splits pieces into chunks of
// several sizes, including a last chunk that is short, and checks that every
// piece is done exactly once.
//
// client-go: util/workqueue.ParallelizeUntil (TestParallelizeUntil).
func TestParallelizeUntilDoesEveryPieceOnce(t *testing.T) {
	tests := []struct {
		name                       string
		workers, pieces, chunkSize int
	}{
		{"one at a time", 4, 100, 1},
		{"chunks of 10", 4, 100, 10},
		{"short last chunk", 3, 99, 13},
		{"more workers than chunks", 50, 7, 2},
		{"no chunk size", 2, 10, 0},
		{"no workers means one", 0, 10, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := make([]atomic.Int32, tt.pieces)

			workqueue.ParallelizeUntil(t.Context(), tt.workers, tt.pieces, func(p int) { seen[p].Add(1) }, workqueue.WithChunkSize(tt.chunkSize))

			for p := range seen {
				assert.Equal(t, int32(1), seen[p].Load(), "piece %d", p)
			}
		})
	}
}

// TestParallelizeUntilRunsAsManyWorkersAsAsked blocks every call until all
// that can start have started: exactly the workers asked for are in a call
// at once, and with more workers than chunks, one per chunk.
//
// client-go: util/workqueue.ParallelizeUntil (workers = min(workers, chunks)).
func TestParallelizeUntilRunsAsManyWorkersAsAsked(t *testing.T) {
	tests := []struct {
		name                             string
		workers, pieces, chunkSize, want int
	}{
		{"fewer workers than chunks", 3, 6, 1, 3},
		{"more workers than chunks", 10, 6, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inFlight atomic.Int32
				release := make(chan struct{})
				work := func(int) {
					inFlight.Add(1)
					<-release
					inFlight.Add(-1)
				}
				done := make(chan struct{})

				go func() {
					defer close(done)
					workqueue.ParallelizeUntil(t.Context(), tt.workers, tt.pieces, work, workqueue.WithChunkSize(tt.chunkSize))
				}()
				synctest.Wait() // every worker that could start a call is blocked in it

				assert.Equal(t, int32(tt.want), inFlight.Load())
				close(release)
				<-done
			})
		})
	}
}

// TestParallelizeUntilStartsNoPieceAfterCancel cancels the context from
// inside piece 2 with one worker: pieces 0-2 are done, no later one starts,
// and the call returns.
//
// client-go: util/workqueue.ParallelizeUntil (stops at ctx.Done()).
func TestParallelizeUntilStartsNoPieceAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var done []int

	workqueue.ParallelizeUntil(ctx, 1, 10, func(p int) {
		done = append(done, p)
		if p == 2 {
			cancel()
		}
	}, workqueue.WithChunkSize(4))

	assert.Equal(t, []int{0, 1, 2}, done)
}

// TestParallelizeUntilWithNoPiecesOrNilContextReturns checks the edges:
// no pieces calls nothing, and a nil context is never done.
//
// client-go: util/workqueue.ParallelizeUntil.
func TestParallelizeUntilWithNoPiecesOrNilContextReturns(t *testing.T) {
	var calls atomic.Int32
	count := func(int) { calls.Add(1) }

	workqueue.ParallelizeUntil(t.Context(), 4, 0, count)
	//lint:ignore SA1012 a nil context is accepted, as in client-go
	workqueue.ParallelizeUntil(nil, 4, 5, count)

	assert.Equal(t, int32(5), calls.Load())
}
