package recorder

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

const (
	// sentEventsSize is how many written Events the broadcaster remembers
	// to count repeats on (client-go's correlator keeps as many).
	sentEventsSize = 4096
	// maxEventAttempts and eventRetryDelay: a write is tried three times,
	// a second apart, before the Event is given up.
	maxEventAttempts = 3
	eventRetryDelay  = time.Second
)

// Start writes buffered Events until ctx is done, then flushes: it writes
// what is still buffered within FlushTimeout, counts what it could not
// write as failed, and returns. Events recorded after that are dropped.
// It runs on the calling goroutine and starts no other; a second call is
// an error.
func (b *EventBroadcaster) Start(ctx context.Context) error {
	b.mu.Lock()
	if b.started {
		b.mu.Unlock()
		return errors.New("controller: events: the broadcaster was started twice")
	}
	b.started = true
	b.mu.Unlock()

	for {
		select {
		case <-ctx.Done():
			b.flush()
			return nil
		case <-b.wake:
		}
		if !b.writePending(ctx) {
			continue
		}
		// Some write failed and will be retried: not at once.
		t := time.NewTimer(eventRetryDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			b.flush()
			return nil
		case <-t.C:
			select {
			case b.wake <- struct{}{}:
			default:
			}
		}
	}
}

// writePending writes every buffered Event once, and reports whether some
// write failed and is to be retried.
func (b *EventBroadcaster) writePending(ctx context.Context) (retry bool) {
	batch := b.take()
	for i, pe := range batch {
		err := b.write(ctx, pe)
		switch {
		case err == nil:
			b.settle(pe, true)
		case ctx.Err() != nil:
			// Stopping: leave this one and the rest to the flush.
			for _, rest := range batch[i:] {
				b.requeue(rest)
			}
			return false
		default:
			pe.attempts++
			if pe.attempts >= maxEventAttempts {
				b.logger.Error("event not written, giving up", "reason", pe.key.reason, "object", pe.key.object.Name, "attempts", pe.attempts, "err", err)
				b.settle(pe, false)
				continue
			}
			b.logger.Warn("event not written, will retry", "reason", pe.key.reason, "object", pe.key.object.Name, "err", err)
			b.requeue(pe)
			retry = true
		}
	}
	return retry
}

// flush stops accepting Events and writes the buffer, within FlushTimeout.
func (b *EventBroadcaster) flush() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), b.flushTimeout)
	defer cancel()
	var failed int
	for _, pe := range b.take() {
		err := b.write(ctx, pe)
		if err != nil {
			failed += pe.count
			b.logger.Error("event not written while flushing", "reason", pe.key.reason, "object", pe.key.object.Name, "err", err)
		}
		b.settle(pe, err == nil)
	}
	if failed > 0 {
		b.logger.Error("events lost at shutdown", "count", failed)
	}
}

// take removes every pending Event from the buffer, oldest first, and
// marks them in flight.
func (b *EventBroadcaster) take() []*pendingEvent {
	b.mu.Lock()
	defer b.mu.Unlock()
	batch := make([]*pendingEvent, 0, len(b.queue))
	for _, key := range b.queue {
		batch = append(batch, b.pending[key])
		delete(b.pending, key)
	}
	b.queue = nil
	b.inFlight += len(batch)
	return batch
}

// settle ends an in-flight Event: written, or given up.
func (b *EventBroadcaster) settle(pe *pendingEvent, written bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight--
	b.counted -= pe.count
	if written {
		b.stats.Written += int64(pe.count)
	} else {
		b.stats.Failed += int64(pe.count)
	}
}

// requeue puts an in-flight Event back in the buffer, merged with any
// repeats recorded meanwhile. It always fits: in-flight Events count
// against the buffer size.
func (b *EventBroadcaster) requeue(pe *pendingEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight--
	if newer, ok := b.pending[pe.key]; ok {
		newer.count += pe.count
		newer.first = pe.first
		newer.attempts = pe.attempts
		return
	}
	b.pending[pe.key] = pe
	b.queue = append(b.queue, pe.key)
}

// write sends one pending Event: a count on the Event written before for
// its key, or a new Event.
func (b *EventBroadcaster) write(ctx context.Context, pe *pendingEvent) error {
	ns := pe.key.object.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault // where Events about cluster-scoped objects go
	}
	api := b.newClient(eventsGVR, ns)
	if api == nil {
		return errors.New("controller: events: NewClient returned no handle for events")
	}
	if sent, ok := b.sent.get(pe.key); ok {
		count := sent.count + pe.count
		patch, err := json.Marshal(map[string]any{"count": count, "lastTimestamp": timestamp(pe.last)})
		if err != nil {
			return err
		}
		_, err = api.Patch(ctx, sent.name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err == nil {
			sent.count = count
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		// The Event expired on the server (or someone deleted it): start
		// a new one.
		b.sent.remove(pe.key)
	}
	name := b.eventName(pe.key.object.Name)
	if _, err := api.Create(ctx, b.newEvent(name, ns, pe), metav1.CreateOptions{}); err != nil {
		return err
	}
	b.sent.add(pe.key, &sentEvent{name: name, count: pe.count})
	return nil
}

// eventName returns "<object>.<hex nanoseconds>", like client-go, made
// unique within this broadcaster even when two Events share a clock tick.
func (b *EventBroadcaster) eventName(object string) string {
	b.lastName = max(time.Now().UnixNano(), b.lastName+1)
	return fmt.Sprintf("%s.%x", object, b.lastName)
}

// newEvent builds the v1 Event for a pending one.
func (b *EventBroadcaster) newEvent(name, ns string, pe *pendingEvent) *unstructured.Unstructured {
	ref := pe.key.object
	involved := map[string]any{"apiVersion": ref.APIVersion, "kind": ref.Kind, "name": ref.Name}
	if ref.Namespace != "" {
		involved["namespace"] = ref.Namespace
	}
	if ref.UID != "" {
		involved["uid"] = string(ref.UID)
	}
	if pe.resourceVersion != "" {
		involved["resourceVersion"] = pe.resourceVersion
	}
	source := map[string]any{"component": pe.key.component}
	if b.host != "" {
		source["host"] = b.host
	}
	ev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion":         "v1",
		"kind":               "Event",
		"metadata":           map[string]any{"name": name, "namespace": ns},
		"involvedObject":     involved,
		"reason":             pe.key.reason,
		"message":            pe.key.message,
		"type":               pe.key.eventtype,
		"source":             source,
		"count":              int64(pe.count),
		"firstTimestamp":     timestamp(pe.first),
		"lastTimestamp":      timestamp(pe.last),
		"reportingComponent": pe.key.component,
		"reportingInstance":  b.host,
	}}
	return ev
}

// timestamp formats t as metav1.Time does: RFC 3339, UTC, seconds.
func timestamp(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// sentEvent is an Event written to the server: its name and count.
type sentEvent struct {
	name  string
	count int
}

// sentEvents remembers the last Events written, least recently used
// first out.
type sentEvents struct {
	max   int
	order *list.List // of eventKey, most recently used at the front
	byKey map[eventKey]*list.Element
	sent  map[eventKey]*sentEvent
}

func newSentEvents(max int) *sentEvents {
	return &sentEvents{max: max, order: list.New(), byKey: map[eventKey]*list.Element{}, sent: map[eventKey]*sentEvent{}}
}

func (s *sentEvents) get(key eventKey) (*sentEvent, bool) {
	e, ok := s.byKey[key]
	if !ok {
		return nil, false
	}
	s.order.MoveToFront(e)
	return s.sent[key], true
}

func (s *sentEvents) add(key eventKey, ev *sentEvent) {
	if e, ok := s.byKey[key]; ok {
		s.order.MoveToFront(e)
	} else {
		s.byKey[key] = s.order.PushFront(key)
	}
	s.sent[key] = ev
	for s.order.Len() > s.max {
		oldest := s.order.Back()
		old := s.order.Remove(oldest).(eventKey)
		delete(s.byKey, old)
		delete(s.sent, old)
	}
}

func (s *sentEvents) remove(key eventKey) {
	if e, ok := s.byKey[key]; ok {
		s.order.Remove(e)
		delete(s.byKey, key)
		delete(s.sent, key)
	}
}
