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
