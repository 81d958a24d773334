package testenv

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Transitions is a slog.Handler for a Reflector's (or an informer's) logger.
// It records the Reflector's state transitions, its Debug lines
// "reflector: state", as "from -> to: cause", and writes each transition and
// every line at Info or above to out (a test's t.Output()).
type Transitions struct {
	out slog.Handler

	mu      *sync.Mutex // guards edges; shared with the handlers WithAttrs and WithGroup derive
	edges   *[]string
	changed chan struct{} // signalled (without blocking) after every transition
}

// NewTransitions returns a Transitions writing to out.
func NewTransitions(out io.Writer) *Transitions {
	return &Transitions{
		out:     slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}),
		mu:      &sync.Mutex{},
		edges:   new([]string),
		changed: make(chan struct{}, 1),
	}
}

// Logger returns a logger that writes through h.
func (h *Transitions) Logger() *slog.Logger { return slog.New(h) }

// Enabled implements slog.Handler: every level, so Debug transitions arrive.
func (h *Transitions) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (h *Transitions) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "reflector: state" {
		var from, to, cause string
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "from":
				from = a.Value.String()
			case "to":
				to = a.Value.String()
			case "cause":
				cause = a.Value.String()
			}
			return true
		})
		h.mu.Lock()
		*h.edges = append(*h.edges, from+" -> "+to+": "+cause)
		h.mu.Unlock()
		select {
		case h.changed <- struct{}{}:
		default:
		}
		return h.out.Handle(ctx, r)
	}
	if r.Level >= slog.LevelInfo {
		return h.out.Handle(ctx, r)
	}
	return nil
}

// WithAttrs implements slog.Handler.
func (h *Transitions) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.out = h.out.WithAttrs(attrs)
	return &c
}

// WithGroup implements slog.Handler.
func (h *Transitions) WithGroup(name string) slog.Handler {
	c := *h
	c.out = h.out.WithGroup(name)
	return &c
}

// List returns the transitions so far.
func (h *Transitions) List() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), *h.edges...)
}

// WaitFor waits until a transition containing s has been recorded, and
// reports whether one was before ctx ended.
func (h *Transitions) WaitFor(ctx context.Context, s string) bool {
	for h.Count(s) == 0 {
		select {
		case <-h.changed:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// Count returns how many transitions so far contain s.
func (h *Transitions) Count(s string) int {
	n := 0
	for _, e := range h.List() {
		if strings.Contains(e, s) {
			n++
		}
	}
	return n
}
