package pipelineweb

import "sync"

// Subscription is one reader's view of a [Hub]: the events published since
// it was made, in order, held in a buffer of fixed size. When the buffer is
// full, the oldest event is dropped and counted; the reader learns how many
// it lost, and where, from Next. It is safe for concurrent use.
type Subscription struct {
	hub   *Hub
	ready chan struct{} // capacity 1: "something was offered"

	mu      sync.Mutex // guards buf, dropped, total and closed
	buf     ring
	dropped int    // dropped since the last Next: all before buf's first event
	total   uint64 // dropped since Subscribe
	closed  bool
}

// offer adds e, dropping the oldest event if the buffer is full.
func (s *Subscription) offer(e Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.buf.full() {
		s.buf.drop()
		s.dropped++
		s.total++
	}
	s.buf.push(e)
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Ready is signalled after events arrive; call Next to take them.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Next takes every buffered event, oldest first, and how many events were
// dropped just before the first of them since the last call.
func (s *Subscription) Next() (events []Event, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	events = s.buf.all()
	s.buf.reset()
	dropped, s.dropped = s.dropped, 0
	return events, dropped
}

// Dropped returns how many events this subscription has dropped in all.
func (s *Subscription) Dropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Close ends the subscription; the hub forgets it. Close is idempotent.
func (s *Subscription) Close() {
	s.hub.unsubscribe(s)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.buf.reset()
}

// ring is a fixed-size FIFO of events: its memory never grows.
type ring struct {
	buf  []Event
	head int // index of the oldest event
	n    int // events held
}

func newRing(size int) ring { return ring{buf: make([]Event, size)} }

func (r *ring) full() bool { return r.n == len(r.buf) }

// push adds e, overwriting the oldest event when full.
func (r *ring) push(e Event) {
	if r.full() {
		r.drop()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = e
	r.n++
}

// drop forgets the oldest event.
func (r *ring) drop() {
	r.buf[r.head] = Event{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

// all copies the events out, oldest first.
func (r *ring) all() []Event {
	out := make([]Event, r.n)
	for i := range r.n {
		out[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	return out
}

func (r *ring) reset() {
	clear(r.buf)
	r.head, r.n = 0, 0
}
