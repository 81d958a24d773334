package pipelineweb

// BufferSize returns the fixed size of a subscription's buffer and how many
// events it holds now: the size never changes, whatever is published.
func BufferSize(s *Subscription) (size, held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.buf.buf), s.buf.n
}
