package informer

import "fmt"

// errorf builds an error prefixed with the package name.
func errorf(format string, args ...any) error {
	return fmt.Errorf("informer: "+format, args...)
}

// checkInvariants verifies the informer's invariants (see the comments on
// sharedIndexInformer and sharedProcessor). Tests call it through
// export_test.go.
func (s *sharedIndexInformer) checkInvariants() error {
	s.mu.Lock()
	started, stopped := s.started, s.stopped
	s.mu.Unlock()
	if stopped && !started {
		return errorf("stopped but never started")
	}
	s.processor.mu.RLock()
	told := s.processor.upstreamSynced
	s.processor.mu.RUnlock()
	// The synced channel is closed before the handlers are told, never after.
	if told && !s.HasSynced() {
		return errorf("handlers were told the informer synced, but it has not")
	}
	return s.processor.checkInvariants()
}
