package deltafifo

// DefaultBatchSize is the most deltas one [RealFIFO.PopBatch] hands out, as
// in client-go.
const DefaultBatchSize = 1000

// ProcessBatchFunc consumes a batch [RealFIFO.PopBatch] took off the queue:
// two or more deltas, in arrival order, each about a different object, none
// of them ReplacedAll or SyncAll. isInInitialList is the same for the whole
// batch: a batch never straddles the end of the initial list. The consumer
// applies a batch to its store in one step (indexer.Store.Transaction) and
// then tells its handlers, one delta at a time.
//
// client-go: tools/cache.ProcessBatchFunc.
type ProcessBatchFunc func(deltas []Delta, isInInitialList bool) error

// QueueWithBatch is a [Queue] that can also hand out batches. [RealFIFO]
// implements it; a DeltaFIFO cannot, since each of its pops is already the
// whole history of one object.
//
// client-go: tools/cache.QueueWithBatch.
type QueueWithBatch interface {
	Queue
	PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error
}

var _ QueueWithBatch = (*RealFIFO)(nil)

// PopBatch blocks until a delta is queued, then takes the longest run of
// deltas at the head of the line that can be applied together, and hands it
// to processBatch; a run of one goes to processSingle instead, as a
// one-element Deltas, exactly as Pop would hand it. The run ends before:
//
//   - the batch size (DefaultBatchSize) is reached;
//   - a delta for an object already in the run: the run holds each object
//     once, so applying it needs no ordering inside it;
//   - a ReplacedAll or SyncAll delta, which is about the whole store and is
//     always handed out alone;
//   - the end of the initial list, so that isInInitialList is true for the
//     whole run or for none of it.
//
// Everything else is as for [RealFIFO.Pop]: the process function runs under
// the lock unless UnlockWhileProcessing lets it go (only while fewer than
// two full batches wait), its error is returned, nothing is requeued, the
// initial-list count drops only after it returns, and PopBatch returns
// [ErrFIFOClosed] once the queue is closed and empty.
//
// client-go: tools/cache.RealFIFO.PopBatch (feature InOrderInformersBatchProcess).
func (f *RealFIFO) PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error {
	if processBatch == nil || processSingle == nil {
		return errNilProcess
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(); err != nil {
		return err
	}

	// Step 3 (pop object): a run of deltas for distinct objects.
	n := f.batchLenLocked()
	batch := make([]Delta, n)
	for i := range n {
		batch[i] = f.items[i].Delta
		f.items[i] = keyedDelta{}
	}
	f.items = f.items[n:]

	isInInitialList := !f.synced.Load()
	defer f.processedLocked(n)
	if n == 1 {
		return f.processLocked(func() error { return processSingle(Deltas{batch[0]}, isInInitialList) })
	}
	return f.processLocked(func() error { return processBatch(batch, isInInitialList) })
}

// batchLenLocked is how many deltas at the head of the line form the next
// batch; at least one, as the queue is not empty.
func (f *RealFIFO) batchLenLocked() int {
	limit := min(len(f.items), f.batchSize)
	if f.initialPopulationCount > 0 {
		limit = min(limit, f.initialPopulationCount)
	}
	if isWholeStore(f.items[0].Type) {
		return 1
	}
	seen := make(map[string]bool, limit)
	n := 0
	for n < limit {
		it := f.items[n]
		if isWholeStore(it.Type) || seen[it.key] {
			break
		}
		seen[it.key] = true
		n++
	}
	return n
}
