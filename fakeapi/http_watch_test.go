package fakeapi_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestHTTPWatchStreamsOneFlushedEventPerLine checks the watch wire format:
// 200, application/json, chunked (no Content-Length), one JSON event per
// newline-terminated line, each object with kind and apiVersion, and live
// events arriving while the stream is open (so each event was flushed).
// Diagram: step 1. client-go: watch decoding in rest.Request.Watch / streamwatcher.
func TestHTTPWatchStreamsOneFlushedEventPerLine(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))

	st := openWatch(t, ts, cmPath+"?watch=true")
	typ, obj := st.next(t)
	mustCreate(t, cms, configMap("default", "b"))
	typ2, obj2 := st.next(t)
	require.NoError(t, cms.Delete(t.Context(), "a", metav1.DeleteOptions{}))
	typ3, obj3 := st.next(t)

	assert.Equal(t, http.StatusOK, st.resp.StatusCode)
	assert.Equal(t, "application/json", st.resp.Header.Get("Content-Type"))
	assert.Equal(t, int64(-1), st.resp.ContentLength)
	assert.Equal(t, []string{"chunked"}, st.resp.TransferEncoding)
	assert.Equal(t, "ADDED a", typ+" "+objName(obj))
	assert.Equal(t, "ConfigMap", obj["kind"])
	assert.Equal(t, "v1", obj["apiVersion"])
	assert.Equal(t, "ADDED b", typ2+" "+objName(obj2))
	assert.Equal(t, "DELETED a@4", typ3+" "+objName(obj3)+"@"+objRV(obj3))
	line := <-st.raw
	assert.True(t, strings.HasPrefix(line, `{"type":"ADDED","object":{`))
	assert.True(t, strings.HasSuffix(line, "}\n"))
}

// TestHTTPLegacyWatchPathAndBooleans checks the /watch/ URL prefix (for a
// collection and for one name) and that watch=True and watch=1 parse as true.
// Diagram: step 1. client-go: older clients and Python use these forms.
func TestHTTPLegacyWatchPathAndBooleans(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))
	mustCreate(t, cms, configMap("default", "b"))

	for _, path := range []string{
		"/api/v1/watch/namespaces/default/configmaps/b",
		cmPath + "?watch=True&fieldSelector=metadata.name%3Db",
		cmPath + "/b?watch=1",
	} {
		t.Run(path, func(t *testing.T) {
			st := openWatch(t, ts, path)

			typ, obj := st.next(t)

			assert.Equal(t, "ADDED b", typ+" "+objName(obj))
		})
	}
	all := openWatch(t, ts, "/api/v1/watch/configmaps")
	typ, obj := all.next(t)
	assert.Equal(t, "ADDED a", typ+" "+objName(obj))
}

// TestHTTPWatchTooOldIsOKThenErrorEvent checks the real server's answer to
// an expired resourceVersion: HTTP 200, one ERROR event with a 410 Expired
// Status, then the end of the stream.
// Diagram: step 1. client-go: Reflector treats this ERROR as "relist".
func TestHTTPWatchTooOldIsOKThenErrorEvent(t *testing.T) {
	s := newServer(t, fakeapi.Options{HistoryLimit: 1})
	ts := httpServer(t, s)
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))
	mustCreate(t, cms, configMap("default", "b"))
	mustCreate(t, cms, configMap("default", "c"))

	st := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=2&allowWatchBookmarks=true&timeoutSeconds=300")
	typ, obj := st.next(t)

	assert.Equal(t, http.StatusOK, st.resp.StatusCode)
	assert.Equal(t, "ERROR", typ)
	assert.Equal(t, map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": "too old resource version: 2 (4)", "reason": "Expired", "code": float64(410)}, obj)
	st.expectEnd(t)
}

// TestHTTPWatchAheadOfServerIsOKThenWaits checks a plain watch from a
// resourceVersion the server has not reached: HTTP 200, then nothing until
// that version exists, then the events after it (the first event on the
// stream is the one after the version asked for). A streaming list from
// such a version gets 200 and one ERROR 504 ResourceVersionTooLarge.
// Diagram: step 1. client-go: none (kube-apiserver's watch cache).
func TestHTTPWatchAheadOfServerIsOKThenWaits(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a")) // rv 2

	st := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=4&allowWatchBookmarks=true")
	streaming := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=4&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	mustCreate(t, cms, configMap("default", "b")) // rv 3
	mustCreate(t, cms, configMap("default", "c")) // rv 4
	mustCreate(t, cms, configMap("default", "d")) // rv 5
	typ, obj := st.next(t)
	errType, errObj := streaming.next(t)

	assert.Equal(t, http.StatusOK, st.resp.StatusCode)
	assert.Equal(t, "ADDED d@5", typ+" "+objName(obj)+"@"+objRV(obj))
	assert.Equal(t, http.StatusOK, streaming.resp.StatusCode)
	require.Equal(t, "ERROR", errType)
	assert.Equal(t, float64(http.StatusGatewayTimeout), errObj["code"])
	assert.Equal(t, "Timeout", errObj["reason"])
	assert.Equal(t, "ResourceVersionTooLarge", errObj["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["reason"])
	streaming.expectEnd(t)
}

// TestHTTPStreamingListEndsInitialEventsWithBookmark checks the streaming
// list over HTTP: ADDED events, then a BOOKMARK with the initial-events-end
// annotation (and the list blueprint older typed clients read), and 422
// without resourceVersionMatch.
// Diagram: step 1. client-go: WatchListClient (default on since v0.35).
func TestHTTPStreamingListEndsInitialEventsWithBookmark(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

	st := openWatch(t, ts, cmPath+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	typ, obj := st.next(t)
	bmType, bm := st.next(t)
	resp, data := do(t, ts, "GET", cmPath+"?watch=true&sendInitialEvents=true", "")

	assert.Equal(t, "ADDED a", typ+" "+objName(obj))
	require.Equal(t, "BOOKMARK", bmType)
	assert.Equal(t, "ConfigMap", bm["kind"])
	assert.Equal(t, "2", objRV(bm))
	ann := bm["metadata"].(map[string]any)["annotations"].(map[string]any)
	assert.Equal(t, "true", ann["k8s.io/initial-events-end"])
	blueprint, err := base64.StdEncoding.DecodeString(ann["kubernetes.io/initial-events-list-blueprint"].(string))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[]}`, string(blueprint))
	requireStatus(t, resp, data, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
}

// TestHTTPWatchEndsAtTimeoutAndOnClose checks that timeoutSeconds ends the
// stream cleanly and that Server.Close ends open streams.
// Diagram: step 1. client-go: Reflector re-watches after a clean end.
func TestHTTPWatchEndsAtTimeoutAndOnClose(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)

	timed := openWatch(t, ts, cmPath+"?watch=true&timeoutSeconds=1")
	open := openWatch(t, ts, cmPath+"?watch=true")
	timed.expectEnd(t)
	s.Close()

	open.expectEnd(t)
}
