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
