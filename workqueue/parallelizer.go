package workqueue

import (
	"context"
	"sync"
)

// DoWorkPieceFunc does one piece of the work ParallelizeUntil splits up;
// piece is its index, from 0.
//
// client-go: util/workqueue.DoWorkPieceFunc.
type DoWorkPieceFunc func(piece int)

// ParallelizeOption configures ParallelizeUntil.
//
// client-go: util/workqueue.Options (renamed here: [Option] configures the
// queues).
type ParallelizeOption func(*parallelizeOptions)

type parallelizeOptions struct {
	chunkSize int
}

// WithChunkSize hands the pieces to the workers c at a time instead of one
// by one: fewer hand-offs when pieces are small. Values below 1 mean 1.
//
// client-go: util/workqueue.WithChunkSize.
func WithChunkSize(c int) ParallelizeOption {
	return func(o *parallelizeOptions) { o.chunkSize = c }
}

// ParallelizeUntil calls doWorkPiece(0), ..., doWorkPiece(pieces-1), each
// once, from at most workers goroutines (at least one), and returns when
// every call has returned. Once ctx is done no further piece is started;
// ParallelizeUntil still waits for the calls in progress. A nil ctx is never
// done. It is not a queue: it is the fan-out a controller uses for one
// batch of independent steps, such as writing many objects.
//
// A panic in doWorkPiece is not recovered: it ends the program, as in
// client-go (whose HandleCrash re-panics by default).
//
// client-go: util/workqueue.ParallelizeUntil.
func ParallelizeUntil(ctx context.Context, workers, pieces int, doWorkPiece DoWorkPieceFunc, opts ...ParallelizeOption) {
	if pieces <= 0 {
		return
	}
	var o parallelizeOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	chunkSize := max(o.chunkSize, 1)
	chunks := (pieces + chunkSize - 1) / chunkSize
	workers = min(max(workers, 1), chunks)

	// Every chunk is queued up front; workers take the next one until none
	// is left, so a slow chunk delays no other worker.
	next := make(chan int, chunks)
	for c := range chunks {
		next <- c
	}
	close(next)
	var stop <-chan struct{}
	if ctx != nil {
		stop = ctx.Done()
	}

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range next {
				for p := c * chunkSize; p < min((c+1)*chunkSize, pieces); p++ {
					select {
					case <-stop:
						return
					default:
						doWorkPiece(p)
					}
				}
			}
		})
	}
	wg.Wait()
}
