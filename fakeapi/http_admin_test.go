package fakeapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestHTTPAdminFaults drives every fault through its admin endpoint and
// checks its effect and the counters at GET /admin/faults.
// Diagram: step 1. client-go: the failures a Reflector must survive, on demand from outside.
func TestHTTPAdminFaults(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))
	post := func(path string) {
		t.Helper()
		resp, data := do(t, ts, "POST", path, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		var st metav1.Status
		require.NoError(t, json.Unmarshal(data, &st))
		assert.Equal(t, metav1.StatusSuccess, st.Status)
	}

	w1 := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=2")
	post("/admin/faults/close-watches")
	w1.expectEnd(t)

	w2 := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=2")
	post("/admin/faults/watch-error?code=500&message=boom")
	typ, obj := w2.next(t)
	assert.Equal(t, "ERROR", typ)
	assert.Equal(t, "boom", obj["message"])
	assert.Equal(t, "InternalError", obj["reason"])
	w2.expectEnd(t)

	post("/admin/faults/fail-next?verb=get&count=1&code=503")
	resp, data := do(t, ts, "GET", cmPath+"/a", "")
	requireStatus(t, resp, data, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable)

	w3 := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=2")
	resp, data = do(t, ts, "POST", "/admin/silent"+cmPath, fmt.Sprintf(cmJSON, "hidden"))
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	post("/admin/faults/hang-watches?on=true")
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "late"))
	post("/admin/faults/hang-watches?on=false")
	typ, obj = w3.next(t)
	assert.Equal(t, "ADDED late", typ+" "+objName(obj), "the silent create never reaches the watch")

	post("/admin/faults/compact")
	w4 := openWatch(t, ts, cmPath+"?watch=true&resourceVersion=2")
	typ, obj = w4.next(t)
	assert.Equal(t, "ERROR", typ)
	assert.Equal(t, float64(410), obj["code"])

	post("/admin/faults/latency?delay=1ms")
	post("/admin/faults/latency?delay=0s")

	var counts fakeapi.FaultCounts
	get(t, ts, "/admin/faults", "", &counts)
	assert.Equal(t, fakeapi.FaultCounts{WatchesClosed: 1, Compactions: 1, SilentWrites: 1, FailedRequests: 1,
		WatchErrorsInjected: 1, Hangs: 1}, counts)

	for _, bad := range []string{
		"/admin/faults/fail-next?verb=list&count=x&code=500",
		"/admin/faults/fail-next?verb=list&count=1&code=418",
		"/admin/faults/hang-watches?on=maybe",
		"/admin/faults/latency?delay=-1s",
		"/admin/faults/watch-error?code=200",
	} {
		resp, data := do(t, ts, "POST", bad, "")
		requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	}
	resp, data = do(t, ts, "POST", "/admin/faults/unknown", "")
	requireStatus(t, resp, data, http.StatusNotFound, metav1.StatusReasonNotFound)
}
