package pipelineweb

import (
	"sync"
	"time"
)

// DefaultHistory is how many recent events a Hub keeps for a page that
// opens late; DefaultBuffer is how many a Subscription holds for a page
// that reads slowly.
const (
	DefaultHistory = 2000
	DefaultBuffer  = 512
)

// Hub puts the pipeline's events in one order and hands them to the
// [Model] and to every open page. Publish never blocks on a page: each page
// has a [Subscription] with a bounded buffer, and a page that falls behind
// loses its oldest events, never slows the pipeline.
//
// A Hub is safe for concurrent use. Its zero value is not usable; use
// [NewHub].
type Hub struct {
	model *Model
	now   func() time.Time

	mu sync.Mutex // guards seq, history and subs; Publish is atomic under it
	// seq is the Seq of the last published event.
	seq uint64
	// history is the last len(history.buf) events, oldest first.
	history ring
	subs    map[*Subscription]struct{}
}

// NewHub returns a Hub that applies every event to model (nil: none) and
// keeps the last history events (at least 1) for pages that open late.
func NewHub(model *Model, history int) *Hub {
	return &Hub{
		model:   model,
		now:     time.Now,
		history: newRing(max(history, 1)),
		subs:    map[*Subscription]struct{}{},
	}
}

// Publish numbers e, stamps its time, applies it to the model, keeps it in
// the history and offers it to every subscription. It returns e as
// published. It takes a lock for as long as that takes and never waits for
// a reader.
func (h *Hub) Publish(e Event) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	e.Seq = h.seq
	e.Time = h.now().UnixMilli()
	if h.model != nil {
		h.model.apply(e)
	}
	h.history.push(e)
	for s := range h.subs {
		s.offer(e)
	}
	return e
}

// Subscribe returns the recent history (oldest first) and a subscription
// whose first event is the one after it: together, with no gap and no
// repeat. buffer (at least 1) bounds what the subscription holds for a slow
// reader. Close the subscription when done.
func (h *Hub) Subscribe(buffer int) ([]Event, *Subscription) {
	s := &Subscription{hub: h, buf: newRing(max(buffer, 1)), ready: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[s] = struct{}{}
	return h.history.all(), s
}

// Subscribers returns how many subscriptions are open.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *Hub) unsubscribe(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
}

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
