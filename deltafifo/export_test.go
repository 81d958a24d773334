package deltafifo

// CheckInvariants runs the unexported invariant checker of either queue, so
// the external tests can call it after every step.
func CheckInvariants(q Queue) error {
	switch q := q.(type) {
	case *DeltaFIFO:
		return q.checkInvariants()
	case *RealFIFO:
		return q.checkInvariants()
	}
	panic("deltafifo: CheckInvariants: unknown queue type")
}

// IsLocked reports whether the queue's lock is held right now. Only
// meaningful when called from inside a PopProcessFunc.
func IsLocked(q Queue) bool {
	switch q := q.(type) {
	case *DeltaFIFO:
		if q.mu.TryLock() {
			q.mu.Unlock()
			return false
		}
		return true
	case *RealFIFO:
		if q.mu.TryLock() {
			q.mu.Unlock()
			return false
		}
		return true
	}
	panic("deltafifo: IsLocked: unknown queue type")
}

// QueueLen is how many deltas (RealFIFO) or keys (DeltaFIFO) Pop would hand
// out before the queue is empty; unlike ListKeys it counts a queued
// ReplacedAll or SyncAll.
func QueueLen(q Queue) int {
	switch q := q.(type) {
	case *DeltaFIFO:
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.queue.len()
	case *RealFIFO:
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.items)
	}
	panic("deltafifo: QueueLen: unknown queue type")
}

// SetBatchSize lowers a RealFIFO's batch size, so tests can reach the limit
// with a handful of objects.
func SetBatchSize(f *RealFIFO, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batchSize = n
}

// IsAtomic reports whether f runs in atomic mode (Options.AtomicEvents).
func IsAtomic(f *RealFIFO) bool { return f.atomic }

// Footprint reports how many keys a DeltaFIFO's items map has held at most
// since it was made, and the capacity of its line of keys: what a drained
// queue keeps allocated.
func Footprint(f *DeltaFIFO) (itemsPeak, queueCap int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.itemsPeak, cap(f.queue.keys)
}

// CheckFIFOInvariants and CheckHeapInvariants run the invariant checkers of
// the two queues that are not a Queue.
func CheckFIFOInvariants(f *FIFO) error { return f.checkInvariants() }
func CheckHeapInvariants(h *Heap) error { return h.checkInvariants() }
