package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// waitLimit bounds every wait on a real socket; tests never sleep.
const waitLimit = 10 * time.Second

// watchServer serves one scripted watch stream: the lines, each flushed, then either the
// end of the stream or (hold) an open stream until the client goes away. gone is closed
// when the handler has returned.
type watchServer struct {
	c      *client.Client
	gone   chan struct{}
	lastRQ chan *http.Request
}

func newWatchServer(t *testing.T, hold bool, lines ...string) *watchServer {
	t.Helper()
	ws := &watchServer{gone: make(chan struct{}), lastRQ: make(chan *http.Request, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(ws.gone)
		ws.lastRQ <- r
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for _, l := range lines {
			_, _ = w.Write([]byte(l + "\n"))
			w.(http.Flusher).Flush()
		}
		if hold {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Server: srv.URL}, newScheme())
	require.NoError(t, err)
	ws.c = c
	return ws
}

// drain reads w until its channel closes, failing the test if that takes too long.
func drain(t *testing.T, w watch.Interface) []watch.Event {
	t.Helper()
	var out []watch.Event
	deadline := time.After(waitLimit)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-deadline:
			t.Fatalf("watch did not close within %v; got %d events", waitLimit, len(out))
		}
	}
}

func cmEvent(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":"ns","resourceVersion":%q},"data":{"rv":%q}}}`, typ, name, rv, rv)
}

// TestWatchDeliversEventsInOrderAndEndsCleanly checks the happy path of WIRE.md's
// stream: typed objects for each event type, a bookmark with only a resourceVersion,
// and a clean end (no error event) when the server closes the stream.
// Diagram: step 1. client-go: rest/watch.StreamWatcher.
func TestWatchDeliversEventsInOrderAndEndsCleanly(t *testing.T) {
	ws := newWatchServer(t, false,
		cmEvent("ADDED", "a", "5"),
		cmEvent("MODIFIED", "a", "6"),
		"",
		cmEvent("DELETED", "a", "7"),
		`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}`)
	timeout := int64(300)

	w, err := ws.c.Resource(configMaps).Namespace("ns").Watch(context.Background(),
		metav1.ListOptions{ResourceVersion: "4", AllowWatchBookmarks: true, TimeoutSeconds: &timeout})
	require.NoError(t, err)
	events := drain(t, w)

	req := <-ws.lastRQ
	assert.Equal(t, "/api/v1/namespaces/ns/configmaps", req.URL.Path)
	assert.Equal(t, "true", req.URL.Query().Get("watch"))
	assert.Equal(t, "4", req.URL.Query().Get("resourceVersion"))
	assert.Equal(t, "300", req.URL.Query().Get("timeoutSeconds"))
	require.Len(t, events, 4)
	wantTypes := []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark}
	wantRVs := []string{"5", "6", "7", "9"}
	for i, ev := range events {
		assert.Equal(t, wantTypes[i], ev.Type)
		cm, ok := ev.Object.(*ConfigMap)
		require.True(t, ok, "event %d is %T", i, ev.Object)
		assert.Equal(t, wantRVs[i], cm.ResourceVersion)
	}
	assert.Equal(t, "7", events[2].Object.(*ConfigMap).Data["rv"], "DELETED carries the last state")
	assert.Empty(t, events[3].Object.(*ConfigMap).Name, "a bookmark has only a resourceVersion")
}

// TestWatchOfUnknownKindIsUnstructured checks unstructured events, including the
// streaming-list bookmark that carries the initial-events-end annotation.
// Diagram: step 1. client-go: dynamic.ResourceInterface.Watch.
func TestWatchOfUnknownKindIsUnstructured(t *testing.T) {
	ws := newWatchServer(t, false,
		`{"type":"ADDED","object":{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w","namespace":"ns","resourceVersion":"3"},"spec":{"size":2}}}`,
		`{"type":"BOOKMARK","object":{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"resourceVersion":"3","annotations":{"k8s.io/initial-events-end":"true"}}}}`)
	initial := true

	w, err := ws.c.Resource(widgets).Namespace("ns").Watch(context.Background(), metav1.ListOptions{
		SendInitialEvents: &initial, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	require.NoError(t, err)
	events := drain(t, w)

	req := <-ws.lastRQ
	assert.Equal(t, "/apis/example.com/v1/namespaces/ns/widgets", req.URL.Path)
	assert.Equal(t, "true", req.URL.Query().Get("sendInitialEvents"))
	require.Len(t, events, 2)
	added := events[0].Object.(*unstructured.Unstructured)
	assert.Equal(t, "w", added.GetName())
	bookmark := events[1].Object.(*unstructured.Unstructured)
	assert.Equal(t, "3", bookmark.GetResourceVersion())
	assert.Equal(t, "true", bookmark.GetAnnotations()[metav1.InitialEventsAnnotationKey])
}

// TestWatchTooOldAsHTTP410IsReturnedFromWatch checks the first form of "too old": the
// server answers the watch request itself with 410.
// Diagram: step 1. client-go: reflector.watch (410 -> relist).
func TestWatchTooOldAsHTTP410IsReturnedFromWatch(t *testing.T) {
	c := serveOnce(t, 410, "application/json",
		`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 75 (207)","reason":"Expired","code":410}`, nil)
	plain := serveOnce(t, 410, "text/plain", "gone", nil)

	w, err := c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{ResourceVersion: "75"})
	_, plainErr := plain.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{ResourceVersion: "75"})

	assert.Nil(t, w)
	assert.True(t, apierrors.IsResourceExpired(err), "got %v", err)
	assert.ErrorContains(t, err, "too old resource version")
	assert.True(t, apierrors.IsGone(plainErr), "got %v", plainErr)
}

// TestWatchTooOldAsErrorEventDeliversTheStatus checks the second form, the usual one:
// HTTP 200, then one ERROR event carrying the 410 Status, then the end of the stream.
// Diagram: step 1. client-go: reflector.handleAnyWatch (watch.Error -> apierrors.FromObject).
func TestWatchTooOldAsErrorEventDeliversTheStatus(t *testing.T) {
	ws := newWatchServer(t, false,
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 75 (207)","reason":"Expired","code":410}}`)

	w, err := ws.c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{ResourceVersion: "75"})
	require.NoError(t, err)
	events := drain(t, w)

	require.Len(t, events, 1)
	assert.Equal(t, watch.Error, events[0].Type)
	st, ok := events[0].Object.(*metav1.Status)
	require.True(t, ok, "got %T", events[0].Object)
	assert.Equal(t, int32(410), st.Code)
	assert.True(t, apierrors.IsResourceExpired(apierrors.FromObject(st)))
}

// TestWatchStopsPromptlyOnCancelAndStop checks that a cancelled context and Stop both
// close ResultChan while the server is still holding the stream open, and that the
// server sees the connection go away.
// Diagram: step 1. client-go: watch.Interface.Stop.
func TestWatchStopsPromptlyOnCancelAndStop(t *testing.T) {
	for _, how := range []string{"cancel", "stop"} {
		t.Run(how, func(t *testing.T) {
			ws := newWatchServer(t, true, cmEvent("ADDED", "a", "5"))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := ws.c.Resource(configMaps).Watch(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			select {
			case ev := <-w.ResultChan():
				require.Equal(t, watch.Added, ev.Type)
			case <-time.After(waitLimit):
				t.Fatal("no first event")
			}

			if how == "cancel" {
				cancel()
			} else {
				w.Stop()
				w.Stop() // idempotent
			}

			assert.Empty(t, drain(t, w), "no error event after a requested stop")
			select {
			case <-ws.gone:
			case <-time.After(waitLimit):
				t.Fatal("the server still holds the stream")
			}
		})
	}
}

// TestWatchStopWithUnreadEventsDoesNotBlock checks that Stop ends the watch goroutine
// even when it is blocked handing an event to a consumer that stopped reading.
// Diagram: step 1. client-go: rest/watch.StreamWatcher.Stop.
func TestWatchStopWithUnreadEventsDoesNotBlock(t *testing.T) {
	ws := newWatchServer(t, true, cmEvent("ADDED", "a", "5"), cmEvent("ADDED", "b", "6"), cmEvent("ADDED", "c", "7"))
	w, err := ws.c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)

	w.Stop()

	assert.LessOrEqual(t, len(drain(t, w)), 3)
	select {
	case <-ws.gone:
	case <-time.After(waitLimit):
		t.Fatal("the server still holds the stream")
	}
}

// TestBrokenStreamEndsWithInternalErrorEvent checks every way a stream can carry
// something that is not a valid event: the good events before it are delivered, then
// one watch.Error event whose Status says what was wrong, then the channel closes.
// Diagram: step 1. client-go: rest/watch.StreamWatcher (decode errors -> watch.Error).
func TestBrokenStreamEndsWithInternalErrorEvent(t *testing.T) {
	good := cmEvent("ADDED", "a", "5")
	cases := []struct {
		name string
		line string
		want string
	}{
		{"malformed JSON", `{"type":"ADDED","object":{"kind":`, "malformed event"},
		{"cut-off line", `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metad`, "malformed event"},
		{"unknown type", `{"type":"UPSERTED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"6"}}}`, `unknown event type "UPSERTED"`},
		{"no object", `{"type":"ADDED"}`, "ADDED event has no object"},
		{"other group", `{"type":"ADDED","object":{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"resourceVersion":"6"}}}`, "wrong kind"},
		{"other kind mid-stream", `{"type":"MODIFIED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"resourceVersion":"6"}}}`, "this stream carries ConfigMap"},
		{"status outside ERROR", `{"type":"ADDED","object":{"kind":"Status","apiVersion":"v1","metadata":{"resourceVersion":"6"}}}`, "wrong kind"},
		{"no resourceVersion", `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}}}`, "no metadata.resourceVersion"},
		{"field of wrong type", `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"6"},"data":7}}`, "ADDED event object"},
		{"ERROR with a non-Status", `{"type":"ERROR","object":{"kind":"ConfigMap","apiVersion":"v1"}}`, "want Status"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWatchServer(t, false, good, tc.line)

			w, err := ws.c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
			events := drain(t, w)

			require.Len(t, events, 2)
			assert.Equal(t, watch.Added, events[0].Type)
			assertDecodeErrorEvent(t, events[1], tc.want)
		})
	}
}

func assertDecodeErrorEvent(t *testing.T, ev watch.Event, want string) {
	t.Helper()
	require.Equal(t, watch.Error, ev.Type)
	st, ok := ev.Object.(*metav1.Status)
	require.True(t, ok, "got %T", ev.Object)
	assert.Equal(t, metav1.StatusReasonInternalError, st.Reason)
	assert.Equal(t, int32(500), st.Code)
	assert.Contains(t, st.Message, "client: watch stream: ")
	assert.Contains(t, st.Message, want)
}

// TestOversizedEventEndsTheWatch checks the 16 MiB cap on one event over a real socket.
// Diagram: step 1. client-go: the streaming decoder's frame limit.
func TestOversizedEventEndsTheWatch(t *testing.T) {
	big := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"6"},"data":{"x":"` +
		strings.Repeat("a", client.MaxWatchEventBytes) + `"}}}`
	ws := newWatchServer(t, false, cmEvent("ADDED", "a", "5"), big)

	w, err := ws.c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	events := drain(t, w)

	require.Len(t, events, 2)
	assertDecodeErrorEvent(t, events[1], "event larger than 16777216 bytes")
}

// TestWatchExpectsTheKindItsListReturned checks that after a List, a watch on the same
// resource rejects even its first object if it is of another kind; without a List the
// first object's kind is taken as the stream's.
// Diagram: step 1. client-go: reflector.handleAnyWatch (expectedGVK).
func TestWatchExpectsTheKindItsListReturned(t *testing.T) {
	secret := `{"type":"ADDED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"resourceVersion":"6"}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" {
			_, _ = w.Write([]byte(secret + "\n"))
			return
		}
		_, _ = w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}`))
	}))
	t.Cleanup(srv.Close)
	listed, err := client.New(&client.Config{Server: srv.URL}, nil)
	require.NoError(t, err)
	fresh, err := client.New(&client.Config{Server: srv.URL}, nil)
	require.NoError(t, err)
	_, err = listed.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)

	afterList, err := listed.Resource(configMaps).Namespace("ns").Watch(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	afterListEvents := drain(t, afterList)
	noList, err := fresh.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	noListEvents := drain(t, noList)

	require.Len(t, afterListEvents, 1)
	assertDecodeErrorEvent(t, afterListEvents[0], "object is Secret, but this stream carries ConfigMap")
	require.Len(t, noListEvents, 1)
	assert.Equal(t, watch.Added, noListEvents[0].Type)
}

// TestConnectionDroppedMidStream checks a connection cut by the network: between events
// it is a clean end (nothing half-delivered; the caller re-watches from its last
// resourceVersion), in the middle of an event it is a truncated-stream error.
// Diagram: step 1. client-go: rest/watch.StreamWatcher (unexpected EOF).
func TestConnectionDroppedMidStream(t *testing.T) {
	cases := []struct {
		name       string
		tail       string
		wantError  bool
		wantEvents int
	}{
		{"between events", "", false, 1},
		{"inside an event", `{"type":"ADDED","object":{"kind":"Conf`, true, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				defer conn.Close()
				payload := cmEvent("ADDED", "a", "5") + "\n" + tc.tail
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(payload), payload)
				_ = buf.Flush() // no terminating chunk: the connection just drops
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(&client.Config{Server: srv.URL}, newScheme())
			require.NoError(t, err)

			w, err := c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
			events := drain(t, w)

			require.Len(t, events, tc.wantEvents)
			assert.Equal(t, watch.Added, events[0].Type)
			if tc.wantError {
				assertDecodeErrorEvent(t, events[1], "stream ended in the middle of an event")
			}
		})
	}
}

// TestWatchRejectsANonJSONStream checks that a 200 with another media type (a
// protobuf stream, an HTML page) is an error from Watch, not a stream of garbage.
// Diagram: step 1. client-go: rest.Request.Watch (content negotiation).
func TestWatchRejectsANonJSONStream(t *testing.T) {
	c := serveOnce(t, 200, "application/vnd.kubernetes.protobuf;stream=watch", "\x00\x01", nil)

	w, err := c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})

	assert.Nil(t, w)
	assert.ErrorContains(t, err, "want application/json")
}
