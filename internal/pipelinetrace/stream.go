package pipelinetrace

import (
	"log/slog"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// Stream is one pipeline's stream of typed events: the ListerWatchers its
// informers list and watch through, and the trace their logger writes,
// handed to every sink in order. It names every event's Kind: the
// ListerWatchers know theirs, and the Stream remembers which one delivered
// each key, for the trace records, which carry only the key; a Listed
// event also gets the keys of its LIST.
//
// A Stream is safe for concurrent use; each sink is called on the
// goroutine that reported the event.
type Stream struct {
	sinks []func(Event)
	kinds *kindIndex
}

// NewStream returns a Stream that hands every event to sinks, in order.
func NewStream(sinks ...func(Event)) *Stream {
	return &Stream{sinks: sinks, kinds: newKindIndex()}
}

// Handler returns the slog.Handler for the informers' logger: each record
// at Debug level or above becomes an Event (see Parse).
func (s *Stream) Handler() slog.Handler { return &handler{emit: s.trace} }

// ListerWatcher wraps the ListerWatcher an informer of kind lists and
// watches through: every LIST, WATCH and watch event becomes an Event,
// handed to the sinks before the Reflector gets it. What it wraps may hold
// the calls and events back (the demo's gate, the page's valve).
func (s *Stream) ListerWatcher(inner reflector.ListerWatcher, kind string) reflector.ListerWatcher {
	return &tappedLW{inner: inner, kind: kind, emit: s.listWatch}
}

func (s *Stream) emit(e Event) {
	for _, sink := range s.sinks {
		sink(e)
	}
}

// listWatch notes the keys a ListerWatcher delivered, then emits.
func (s *Stream) listWatch(e Event) {
	switch e.What {
	case ListDone:
		keys := make([]string, 0, len(e.Items))
		for _, item := range e.Items {
			key := objectKey(item)
			keys = append(keys, key)
			s.kinds.saw(e.Kind, key)
		}
		s.kinds.listed(e.Kind, keys, e.RV)
	case WatchEvent:
		if e.EventType != watch.Error && e.EventType != watch.Bookmark {
			s.kinds.saw(e.Kind, e.Key)
		}
	}
	s.emit(e)
}

// trace names a trace record's kind, then emits.
func (s *Stream) trace(e Event) {
	switch e.What {
	case Listed:
		if l, ok := s.kinds.replaced(e.Objects, e.RV); ok {
			e.Kind, e.Keys = l.kind, l.keys
		}
	case Queued, Popped, Stored, Dispatched:
		e.Kind = s.kinds.of(e.Key)
	}
	s.emit(e)
	if e.What == Stored && e.Op == "delete" {
		s.kinds.deleted(e.Kind, e.Key)
	}
}
