package client_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

var coreV1 = schema.GroupVersion{Version: "v1"}

// decodeStream runs the watch decoder over the exact bytes of stream and returns every
// event until the channel closes.
func decodeStream(t *testing.T, stream string, maxBytes int) []watch.Event {
	t.Helper()
	w := client.WatchStream(context.Background(), io.NopCloser(strings.NewReader(stream)), coreV1, "", newScheme(), maxBytes)
	return drain(t, w)
}

// TestDecoderFraming checks the framing rules on exact byte streams: blank lines and
// CRLF are tolerated, a final event without its newline is still an event, a partial
// final event is a truncation error, and the size cap counts one event's bytes.
// Diagram: step 1. client-go: rest/watch.StreamWatcher with the JSON framer.
func TestDecoderFraming(t *testing.T) {
	a, b := cmEvent("ADDED", "a", "5"), cmEvent("MODIFIED", "a", "6")
	cases := []struct {
		name      string
		stream    string
		maxBytes  int
		wantTypes []watch.EventType
		wantError string
	}{
		{"empty stream", "", 1 << 10, nil, ""},
		{"blank lines and CRLF", "\n\r\n" + a + "\r\n\n" + b + "\n", 1 << 10, []watch.EventType{watch.Added, watch.Modified}, ""},
		{"last event without newline", a + "\n" + b, 1 << 10, []watch.EventType{watch.Added, watch.Modified}, ""},
		{"truncated last event", a + "\n" + b[:40], 1 << 10, []watch.EventType{watch.Added}, "stream ended in the middle of an event (40 bytes received)"},
		{"event within the cap", a + "\n", len(a), []watch.EventType{watch.Added}, ""},
		{"event over the cap", a + "\n", len(a) - 1, nil, "event larger than"},
		{"two objects on one line", a + b + "\n", 1 << 10, nil, "malformed event"},
		{"a JSON array", "[1,2]\n", 1 << 10, nil, "malformed event"},
		{"null object", `{"type":"ADDED","object":null}` + "\n", 1 << 10, nil, "has no object"},
		{"object not an object", `{"type":"ADDED","object":"x"}` + "\n", 1 << 10, nil, "not a JSON object"},
		{"metadata not an object", `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":[]}}` + "\n", 1 << 10, nil, "ADDED event object"},
		{"bad apiVersion", `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"a/b/c","metadata":{"resourceVersion":"1"}}}` + "\n", 1 << 10, nil, "apiVersion"},
		{"no type", `{"object":{}}` + "\n", 1 << 10, nil, "event has no type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events := decodeStream(t, tc.stream, tc.maxBytes)

			var types []watch.EventType
			for _, ev := range events {
				if ev.Type != watch.Error {
					types = append(types, ev.Type)
				}
			}
			assert.Equal(t, tc.wantTypes, types)
			if tc.wantError == "" {
				assert.Len(t, events, len(tc.wantTypes), "no error event")
				return
			}
			require.Len(t, events, len(tc.wantTypes)+1)
			assertDecodeErrorEvent(t, events[len(events)-1], tc.wantError)
		})
	}
}

// TestDecoderPassesServerErrorEventsThrough checks that ERROR events are delivered as
// the server's Status (kind and apiVersion filled if the server left them out) and
// that the stream goes on until the server ends it.
// Diagram: step 1. client-go: reflector.handleAnyWatch (watch.Error).
func TestDecoderPassesServerErrorEventsThrough(t *testing.T) {
	stream := `{"type":"ERROR","object":{"status":"Failure","reason":"TooManyRequests","code":429}}` + "\n" +
		cmEvent("ADDED", "a", "5") + "\n"

	events := decodeStream(t, stream, 1<<10)

	require.Len(t, events, 2)
	st := events[0].Object.(*metav1.Status)
	assert.Equal(t, "Status", st.Kind)
	assert.True(t, apierrors.IsTooManyRequests(apierrors.FromObject(st)))
	assert.Equal(t, watch.Added, events[1].Type)
}

// TestDecoderStopsOnContextCancel checks that a cancelled context ends a watch whose
// body never delivers another byte.
// Diagram: step 1. client-go: rest/watch.StreamWatcher.Stop.
func TestDecoderStopsOnContextCancel(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	w := client.WatchStream(ctx, pr, coreV1, "", nil, 1<<10)
	go func() { _, _ = pw.Write([]byte(cmEvent("ADDED", "a", "5") + "\n")) }()
	select {
	case ev := <-w.ResultChan():
		require.Equal(t, watch.Added, ev.Type)
	case <-time.After(waitLimit):
		t.Fatal("no event")
	}

	cancel()
	_ = pw.CloseWithError(context.Canceled) // what the transport does when the request is cancelled

	assert.Empty(t, drain(t, w))
}

// FuzzWatchDecoder feeds arbitrary byte streams to the watch decoder (with a 4 KiB
// event cap, so oversized events are reachable). Whatever the input, the watch must end
// (the channel closes) without a panic, every event must have an object, non-error
// events must carry a resourceVersion, and a decode error must be the last event.
// Diagram: step 1. client-go: rest/watch.StreamWatcher.
func FuzzWatchDecoder(f *testing.F) {
	a := cmEvent("ADDED", "a", "5")
	for _, seed := range []string{
		"",
		a + "\n",
		a + "\n" + cmEvent("MODIFIED", "a", "6") + "\n" + `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}` + "\n",
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 75 (207)","reason":"Expired","code":410}}` + "\n",
		a[:30],
		a + "\n" + `{"type":"ADDED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"resourceVersion":"6"}}}` + "\n",
		`{"type":"ADDED","object":{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"resourceVersion":"6"}}}` + "\n",
		`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"6","creationTimestamp":"x"}}}` + "\n",
		strings.Repeat("x", 5000) + "\n",
		"\n\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		w := client.WatchStream(context.Background(), io.NopCloser(bytes.NewReader(stream)), coreV1, "", newScheme(), 4<<10)
		events := drain(t, w)

		for i, ev := range events {
			require.NotNil(t, ev.Object, "event %d", i)
			if ev.Type == watch.Error {
				st, ok := ev.Object.(*metav1.Status)
				require.True(t, ok, "error event object is %T", ev.Object)
				if strings.HasPrefix(st.Message, "Internal error occurred: client: watch stream: ") {
					require.Equal(t, len(events)-1, i, "a decode error ends the stream")
				}
				continue
			}
			m, err := meta.Accessor(ev.Object)
			require.NoError(t, err)
			require.NotEmpty(t, m.GetResourceVersion())
		}
	})
}
