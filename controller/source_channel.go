package controller

import (
	"context"
	"errors"
	"sync"

	"github.com/informerlab/informerlab/workqueue"
)

// Channel returns a source that reads [GenericEvent]s from ch, for triggers
// from outside the cluster (a webhook, a timer, another system's watch): each
// event that passes predicates goes to handler.Generic.
//
// Start starts one goroutine that reads ch until ch is closed or ctx ends,
// then exits. A channel's events can be read only once, so a Channel source
// can be started only once: give each controller its own channel.
// A Channel source has no initial state: it is not a [SyncingSource].
// Events whose Object is nil are dropped.
//
// client-go: controller-runtime pkg/source.Channel.
func Channel(ch <-chan GenericEvent, handler EventHandler, predicates ...Predicate) *ChannelSource {
	return &ChannelSource{ch: ch, handler: handler, predicates: predicates}
}

// ChannelSource is the source [Channel] returns.
//
// client-go: controller-runtime pkg/source (the unexported channel type behind Channel).
type ChannelSource struct {
	ch         <-chan GenericEvent
	handler    EventHandler
	predicates []Predicate

	mu      sync.Mutex // guards started
	started bool
}

// String names the source in logs and errors.
func (c *ChannelSource) String() string { return "Channel" }

// Start starts the goroutine that hands the channel's events to the handler.
func (c *ChannelSource) Start(ctx context.Context, queue workqueue.RateLimitingInterface[Request]) error {
	switch {
	case c.ch == nil:
		return errors.New("controller: Channel source: channel is nil")
	case c.handler == nil:
		return errors.New("controller: Channel source: handler is nil")
	case queue == nil:
		return errors.New("controller: Channel source: queue is nil")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("controller: Channel source was started twice: a channel's events can be read only once")
	}
	c.started = true
	go c.run(ctx, queue)
	return nil
}

// run hands events to the handler until the channel closes or ctx ends.
func (c *ChannelSource) run(ctx context.Context, queue workqueue.RateLimitingInterface[Request]) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-c.ch:
			if !ok {
				return
			}
			if e.Object == nil {
				LoggerFrom(ctx).Error("dropping generic event without an object")
				continue
			}
			if all(c.predicates, func(p Predicate) bool { return p.Generic(e) }) {
				c.handler.Generic(ctx, e, queue)
			}
		}
	}
}
