package pipelinetrace

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// What says which part of the pipeline an Event reports.
type What int

// The kinds of Event, in the order a change meets them.
const (
	// Log is a record of no step: a log line (Level, Message, Own).
	Log What = iota
	// Queued is step 2 for one object: the Reflector queued one delta of
	// Key in the DeltaFIFO (Op: add, update, delete).
	Queued
	// Listed is step 2 for a LIST: the Reflector hands Objects objects at
	// RV to DeltaFIFO.Replace.
	Listed
	// Popped is step 3: the process loop popped Key's Deltas (their types,
	// oldest first); InitialList marks the pops of the first list.
	Popped
	// Stored is steps 4 and 5: the informer wrote Key to the cache (Op:
	// add, update, delete).
	Stored
	// Dispatched is step 6: the informer notifies Handlers handler(s) of
	// Key (Notification: add, update, delete); Resync marks an update with
	// an unchanged resourceVersion.
	Dispatched
	// ReflectorState is a Reflector's state change (From, To, Cause).
	ReflectorState
	// ReflectorBackoff is a Reflector waiting Delay before it relists or
	// re-watches (Message says which).
	ReflectorBackoff
)

// Event is one thing the pipeline reported, typed. Which fields are set
// depends on What. For a trace record, Level, Message and Own are always
// the record's, and Type and Controller the logger's (a Reflector's
// expected type, a controller's name), when it has them. Kind is the kind
// of the informer the event belongs to, when the Stream knows it ("" when
// not).
type Event struct {
	What    What
	Level   slog.Level
	Message string
	// Own are the record's own attributes, without the logger's.
	Own []slog.Attr

	Type       string // the Reflector's expected type: "*samplecontroller.Foo"
	Controller string

	Kind         string
	Key          string
	Op           string
	Deltas       []string
	Objects      int
	RV           string
	InitialList  bool
	Notification string
	Handlers     int
	Resync       bool
	From, To     string
	Cause        string
	Delay        time.Duration

	// Keys are the keys of a Listed LIST, in its order.
	Keys []string

	// Step 1, from a ListerWatcher: the resourceVersion asked from, a
	// LIST's items, a watch event's type and object, an error.
	RequestRV string
	Items     []runtime.Object
	EventType watch.EventType
	Object    runtime.Object
	Err       error
}

type handler struct {
	emit func(Event)
	// with are the attributes a logger added (WithAttrs). Never modified:
	// WithAttrs copies.
	with []slog.Attr
}

func (h *handler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelDebug
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &handler{emit: h.emit, with: append(slices.Clip(h.with), attrs...)}
}

func (h *handler) WithGroup(string) slog.Handler { return h }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	h.emit(Parse(r, h.with))
	return nil
}

// Parse makes a record, logged by a logger with the attributes with, an
// Event (without its Kind, which only a Stream knows). It is the one place
// that knows the trace's messages and attributes (informer/trace.go, the
// reflector's state changes and backoffs).
func Parse(r slog.Record, with []slog.Attr) Event {
	attrs := map[string]slog.Value{}
	for _, a := range with {
		attrs[a.Key] = a.Value
	}
	e := Event{Level: r.Level, Message: r.Message}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value
		e.Own = append(e.Own, a)
		return true
	})
	str := func(k string) string {
		if v, ok := attrs[k]; ok {
			return v.String()
		}
		return ""
	}
	e.Type, e.Controller, e.Key = str("type"), str("controller"), str("key")
	switch msg := r.Message; {
	case strings.HasPrefix(msg, "informer: step 2") && str("op") != "":
		e.What, e.Op = Queued, str("op")
	case strings.HasPrefix(msg, "informer: step 2"):
		e.What, e.RV = Listed, str("resourceVersion")
		e.Objects, _ = strconv.Atoi(str("objects"))
	case strings.HasPrefix(msg, "informer: step 3"):
		e.What, e.InitialList = Popped, str("isInInitialList") == "true"
		if v, ok := attrs["deltas"]; ok {
			e.Deltas, _ = v.Any().([]string)
		}
	case strings.HasPrefix(msg, "informer: steps 4-5"):
		e.What, e.Op = Stored, str("op")
	case strings.HasPrefix(msg, "informer: step 6"):
		e.What, e.Notification, e.Resync = Dispatched, str("notification"), str("resync") == "true"
		e.Handlers, _ = strconv.Atoi(str("handlers"))
	case msg == "reflector: state":
		e.What, e.From, e.To, e.Cause = ReflectorState, str("from"), str("to"), str("cause")
	case strings.HasPrefix(msg, "reflector: backing off before "):
		e.What = ReflectorBackoff
		e.Delay, _ = time.ParseDuration(str("delay"))
		if v, ok := attrs["delay"]; ok && v.Kind() == slog.KindDuration {
			e.Delay = v.Duration()
		}
	}
	return e
}
