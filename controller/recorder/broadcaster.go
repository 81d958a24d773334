package recorder

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"sync"
	"time"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// EventBroadcasterOptions configure an [EventBroadcaster]. NewClient is
// required.
//
// client-go: tools/record.CorrelatorOptions and the broadcaster's queue
// length.
type EventBroadcasterOptions struct {
	// NewClient returns the handle of v1 events in a namespace.
	NewClient controller.ResourceInterfaceFunc
	// Scheme names the kind of typed objects that carry no apiVersion and
	// kind. nil means objects must carry them.
	Scheme *runtime.Scheme
	// BufferSize is how many distinct Events may wait to be written; a
	// repeat of a waiting Event only raises its count. 0 means
	// DefaultEventBufferSize.
	BufferSize int
	// FlushTimeout bounds how long Start spends, once its context is done,
	// writing what is still buffered. 0 means DefaultEventFlushTimeout.
	FlushTimeout time.Duration
	// Host is the source.host of every Event ("" for none).
	Host string
	// Logger receives drops and write failures. nil means slog.Default().
	Logger *slog.Logger
}

// EventBroadcaster writes the Events its recorders record to the API
// server, as core v1 Events, from one goroutine:
//
//	Event() --> buffer: at most BufferSize distinct events; repeats add to a count
//	              |   (full: drop and count; never block)
//	              v
//	Start's goroutine --> first time: Create Event "<object>.<hex time>" (count n)
//	                 \--> repeat:     Patch count and lastTimestamp of that Event
//
// An Event is identified by its source, the object it is about (kind,
// namespace, name, uid), its type, reason and message: recording the same
// one again, while it waits or after it was written, raises the count of
// one Event object instead of creating another. A failed write is retried
// twice, a second apart, then given up and counted. When Start's context
// ends, what is buffered is written within FlushTimeout; recordings after
// that are dropped.
//
// It is safe for concurrent use; recorders never block on the API server.
// It is a [manager.Runnable] that needs no leadership.
//
// client-go: tools/record.EventBroadcaster with its EventCorrelator (which
// also aggregates similar messages and rate-limits per object; this one
// does not).
type EventBroadcaster struct {
	newClient    controller.ResourceInterfaceFunc
	scheme       *runtime.Scheme
	bufferSize   int
	flushTimeout time.Duration
	host         string
	logger       *slog.Logger
	// wake has room for one signal: "the buffer is not empty".
	wake chan struct{}

	// sent and lastName are used by the writing goroutine only.
	sent     *sentEvents
	lastName int64

	mu sync.Mutex // guards the fields below
	// Invariants: every key of pending is in queue once, and the reverse;
	// len(pending) + inFlight <= bufferSize; stats.Recorded ==
	// stats.Written + stats.Failed + (the counts of pending and in flight).
	pending  map[eventKey]*pendingEvent
	queue    []eventKey
	inFlight int // distinct events taken for writing, not yet settled
	counted  int // Event calls in pending and in flight
	started  bool
	stopped  bool
	stats    EventStats
}

// EventStats counts Event calls (a repeat is one more call).
type EventStats struct {
	Recorded int64 // accepted into the buffer
	Dropped  int64 // refused: buffer full, broadcaster stopped, or invalid
	Written  int64 // written to the API server, as a new Event or a count
	Failed   int64 // given up after retries, or not written by the end of the flush
	Pending  int64 // accepted and not yet written or given up
}

// NewEventBroadcaster returns a broadcaster. It starts nothing: run Start,
// or Add it to a Manager.
//
// client-go: tools/record.NewBroadcaster.
func NewEventBroadcaster(opts EventBroadcasterOptions) (*EventBroadcaster, error) {
	switch {
	case opts.NewClient == nil:
		return nil, errors.New("controller: events: NewClient is nil")
	case opts.BufferSize < 0:
		return nil, fmt.Errorf("controller: events: BufferSize is negative (%d)", opts.BufferSize)
	case opts.FlushTimeout < 0:
		return nil, fmt.Errorf("controller: events: FlushTimeout is negative (%s)", opts.FlushTimeout)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &EventBroadcaster{
		newClient:    opts.NewClient,
		scheme:       opts.Scheme,
		bufferSize:   cmp.Or(opts.BufferSize, DefaultEventBufferSize),
		flushTimeout: cmp.Or(opts.FlushTimeout, DefaultEventFlushTimeout),
		host:         opts.Host,
		logger:       logger,
		wake:         make(chan struct{}, 1),
		sent:         newSentEvents(sentEventsSize),
		pending:      map[eventKey]*pendingEvent{},
	}, nil
}

// NewRecorder returns a recorder whose Events have component as their
// source.
//
// client-go: tools/record.EventBroadcaster.NewRecorder.
func (b *EventBroadcaster) NewRecorder(component string) EventRecorder {
	return recorder{b: b, component: component}
}

// NeedLeaderElection reports false: Events are written on every replica.
func (b *EventBroadcaster) NeedLeaderElection() bool { return false }

// Stats returns the counters.
func (b *EventBroadcaster) Stats() EventStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stats
	s.Pending = int64(b.counted)
	return s
}

// objectReference is an Event's involvedObject, less its resourceVersion.
type objectReference struct {
	APIVersion, Kind, Namespace, Name string
	UID                               types.UID
}

// eventKey identifies an Event: repeats of one key are one Event object.
type eventKey struct {
	component       string
	object          objectReference
	eventtype       string
	reason, message string
}

// pendingEvent is one Event waiting to be written: count calls, the first
// at first and the last at last.
type pendingEvent struct {
	key             eventKey
	resourceVersion string // of the object, at the last call
	count           int
	first, last     time.Time
	attempts        int
}

// record buffers one Event call, or drops it. It never blocks: the lock is
// never held across a request.
func (b *EventBroadcaster) record(component string, obj controller.Object, eventtype, reason, message string) {
	now := time.Now()
	ref, err := b.reference(obj)
	if err == nil && eventtype != EventTypeNormal && eventtype != EventTypeWarning {
		err = fmt.Errorf("type %q is neither %s nor %s", eventtype, EventTypeNormal, EventTypeWarning)
	}
	if err != nil {
		b.drop(true, "invalid event", "reason", reason, "err", err)
		return
	}
	key := eventKey{component: component, object: ref, eventtype: eventtype, reason: reason, message: message}

	b.mu.Lock()
	switch pe, waiting := b.pending[key]; {
	case b.stopped:
		b.mu.Unlock()
		b.drop(false, "event recorded after the broadcaster stopped", "reason", reason, "object", ref.Name)
		return
	case waiting:
		pe.count++
		pe.last = now
		pe.resourceVersion = obj.GetResourceVersion()
	case len(b.pending)+b.inFlight >= b.bufferSize:
		b.mu.Unlock()
		b.drop(false, "event buffer full", "reason", reason, "object", ref.Name, "bufferSize", b.bufferSize)
		return
	default:
		b.pending[key] = &pendingEvent{key: key, resourceVersion: obj.GetResourceVersion(), count: 1, first: now, last: now}
		b.queue = append(b.queue, key)
	}
	b.stats.Recorded++
	b.counted++
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// drop counts a refused Event call and logs it: always if asked (a
// programming error), else when the count of drops is a power of two, so
// a flood of drops is a handful of lines.
func (b *EventBroadcaster) drop(always bool, msg string, args ...any) {
	b.mu.Lock()
	b.stats.Dropped++
	n := b.stats.Dropped
	b.mu.Unlock()
	if always || bits.OnesCount64(uint64(n)) == 1 {
		b.logger.Warn("event dropped: "+msg, append(args, "droppedSoFar", n)...)
	}
}

// reference returns the involvedObject of an Event about obj.
func (b *EventBroadcaster) reference(obj controller.Object) (objectReference, error) {
	gvk, ok := ctrlutil.KindOf(b.scheme, obj)
	if !ok {
		return objectReference{}, fmt.Errorf("cannot tell the kind of %T: set its apiVersion and kind, or give a Scheme that knows it", obj)
	}
	if obj.GetName() == "" {
		return objectReference{}, errors.New("the object has no name")
	}
	return objectReference{
		APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
	}, nil
}

// checkInvariants checks the invariants written on EventBroadcaster.
func (b *EventBroadcaster) checkInvariants() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) != len(b.pending) {
		return fmt.Errorf("controller: events: %d keys queued, %d pending", len(b.queue), len(b.pending))
	}
	pendingCalls := 0
	for _, key := range b.queue {
		pe, ok := b.pending[key]
		if !ok || pe.key != key {
			return fmt.Errorf("controller: events: queued key %v is not pending", key)
		}
		pendingCalls += pe.count
	}
	if n := len(b.pending) + b.inFlight; n > b.bufferSize {
		return fmt.Errorf("controller: events: %d events held, more than the buffer's %d", n, b.bufferSize)
	}
	if b.counted < pendingCalls || (b.inFlight == 0 && b.counted != pendingCalls) {
		return fmt.Errorf("controller: events: %d calls counted, %d pending, %d events in flight", b.counted, pendingCalls, b.inFlight)
	}
	if s := b.stats; s.Recorded != s.Written+s.Failed+int64(b.counted) {
		return fmt.Errorf("controller: events: recorded %d != written %d + failed %d + pending %d", s.Recorded, s.Written, s.Failed, b.counted)
	}
	return nil
}
