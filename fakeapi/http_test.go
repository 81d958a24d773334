package fakeapi_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
)

const cmPath = "/api/v1/namespaces/default/configmaps"

// TestHTTPListItemsCarryNoKind checks the wire shape of a list: kind and
// apiVersion on the list, metadata.resourceVersion, and items without kind
// or apiVersion, like the real server.
// Diagram: step 1. client-go: the list decoder must not rely on item kinds.
func TestHTTPListItemsCarryNoKind(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	empty := asMap(t, func() []byte { _, d := do(t, ts, "GET", cmPath, ""); return d }())
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

	resp, data := do(t, ts, "GET", cmPath, "")

	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []any{}, empty["items"], "an empty list has items: [] not null")
	list := asMap(t, data)
	assert.Equal(t, "ConfigMapList", list["kind"])
	assert.Equal(t, "v1", list["apiVersion"])
	assert.Equal(t, map[string]any{"resourceVersion": "2"}, list["metadata"])
	items := list["items"].([]any)
	require.Len(t, items, 1)
	item := items[0].(map[string]any)
	assert.NotContains(t, item, "kind")
	assert.NotContains(t, item, "apiVersion")
	assert.Equal(t, "a", objName(item))
}

// TestHTTPWriteLifecycle walks create, duplicate, get, stale update, update,
// delete and get-after-delete through their wire answers.
// Diagram: API. client-go: rest.Request against the real server.
func TestHTTPWriteLifecycle(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)

	resp, created := do(t, ts, "POST", cmPath, fmt.Sprintf(cmJSON, "a"), "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(created))
	obj := asMap(t, created)
	md := obj["metadata"].(map[string]any)
	assert.NotEmpty(t, md["uid"])
	assert.NotEmpty(t, md["creationTimestamp"])
	assert.Equal(t, "2", md["resourceVersion"])
	assert.NotContains(t, md, "generation", "a ConfigMap has no spec/status split: no generation")
	assert.Equal(t, "default", md["namespace"])

	resp, data := do(t, ts, "POST", cmPath, fmt.Sprintf(cmJSON, "a"))
	st := requireStatus(t, resp, data, http.StatusConflict, metav1.StatusReasonAlreadyExists)
	assert.Equal(t, "a", st.Details.Name)

	resp, data = do(t, ts, "GET", cmPath+"/a", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ConfigMap", asMap(t, data)["kind"])

	stale := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"0"},"data":{"k":"x"}}`
	resp, data = do(t, ts, "PUT", cmPath+"/a", stale)
	st = requireStatus(t, resp, data, http.StatusConflict, metav1.StatusReasonConflict)
	assert.Contains(t, st.Message, "the object has been modified; please apply your changes to the latest version and try again")

	fresh := strings.Replace(stale, `"resourceVersion":"0"`, `"resourceVersion":"2"`, 1)
	resp, data = do(t, ts, "PUT", cmPath+"/a", fresh)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Equal(t, "3", objRV(asMap(t, data)))

	resp, data = do(t, ts, "PUT", cmPath+"/b", fresh)
	requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)

	resp, data = do(t, ts, "DELETE", cmPath+"/a", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var ok metav1.Status
	require.NoError(t, jsonUnmarshal(data, &ok))
	assert.Equal(t, "Status", ok.Kind)
	assert.Equal(t, metav1.StatusSuccess, ok.Status)
	assert.Equal(t, "a", ok.Details.Name)
	assert.Equal(t, "configmaps", ok.Details.Kind)
	assert.Equal(t, md["uid"], string(ok.Details.UID))

	resp, data = do(t, ts, "GET", cmPath+"/a", "")
	st = requireStatus(t, resp, data, http.StatusNotFound, metav1.StatusReasonNotFound)
	assert.Equal(t, "a", st.Details.Name)
	assert.Equal(t, "configmaps", st.Details.Kind)
	assert.Equal(t, `configmaps "a" not found`, st.Message)
}

// TestHTTPDeleteWithFinalizerReturnsMarkedObject checks that a DELETE that
// cannot finish (finalizers) answers 200 with the object (202 only when
// orphanDependents=false asks for a cascade, as on the real server), and that a
// DeleteOptions body is honoured (Orphan).
// Diagram: API. client-go: DeleteOptions as kubectl sends them.
func TestHTTPDeleteWithFinalizerReturnsMarkedObject(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	withFinalizer := `{"metadata":{"name":"f","finalizers":["example.com/x"]}}`
	do(t, ts, "POST", cmPath, withFinalizer)
	owner, _ := do(t, ts, "POST", cmPath, fmt.Sprintf(cmJSON, "owner"))
	_ = owner
	ownerObj := mustGet(t, s.Resource(configMaps).Namespace("default"), "owner")
	child := fmt.Sprintf(`{"metadata":{"name":"child","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"%s"}]}}`, ownerObj.GetUID())
	do(t, ts, "POST", cmPath, child)

	do(t, ts, "POST", cmPath, `{"metadata":{"name":"g","finalizers":["example.com/x"]}}`)
	resp, data := do(t, ts, "DELETE", cmPath+"/f", "")
	cascade, _ := do(t, ts, "DELETE", cmPath+"/g", `{"kind":"DeleteOptions","apiVersion":"v1","orphanDependents":false}`, "Content-Type", "application/json")
	respOwner, _ := do(t, ts, "DELETE", cmPath+"/owner", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`, "Content-Type", "application/json")
	respChild, _ := do(t, ts, "GET", cmPath+"/child", "")

	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Equal(t, http.StatusAccepted, cascade.StatusCode)
	assert.NotEmpty(t, asMap(t, data)["metadata"].(map[string]any)["deletionTimestamp"])
	assert.Equal(t, http.StatusOK, respOwner.StatusCode)
	assert.Equal(t, http.StatusOK, respChild.StatusCode, "orphaned child survives")
}

// TestHTTPDeleteCollection checks DELETE on a collection with a selector.
// Diagram: API. client-go: DeleteCollection.
func TestHTTPDeleteCollection(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a", "app", "x"))
	mustCreate(t, cms, configMap("default", "b", "app", "x"))
	mustCreate(t, cms, configMap("default", "c", "app", "y"))

	resp, data := do(t, ts, "DELETE", cmPath+"?labelSelector=app%3Dx", "")

	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Len(t, asMap(t, data)["items"], 2)
	_, left := do(t, ts, "GET", cmPath, "")
	assert.Len(t, asMap(t, left)["items"], 1)
}

// TestHTTPStatusSubresource checks PUT and PATCH on /status, and 404 for a
// resource without one.
// Diagram: API. client-go: UpdateStatus over REST.
func TestHTTPStatusSubresource(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	do(t, ts, "POST", "/api/v1/namespaces", `{"metadata":{"name":"team"}}`)
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

	resp, data := do(t, ts, "PATCH", "/api/v1/namespaces/team/status", `{"status":{"phase":"Terminating"},"metadata":{"labels":{"x":"y"}}}`,
		"Content-Type", "application/merge-patch+json")
	respMain, dataMain := do(t, ts, "PATCH", "/api/v1/namespaces/team", `{"status":{"phase":"Active"},"metadata":{"labels":{"x":"y"}}}`,
		"Content-Type", "application/merge-patch+json")
	respCM, dataCM := do(t, ts, "PUT", cmPath+"/a/status", fmt.Sprintf(cmJSON, "a"))

	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	ns := asMap(t, data)
	assert.Equal(t, map[string]any{"phase": "Terminating"}, ns["status"])
	assert.NotContains(t, ns["metadata"], "labels")
	require.Equal(t, http.StatusOK, respMain.StatusCode)
	nsMain := asMap(t, dataMain)
	assert.Equal(t, map[string]any{"phase": "Terminating"}, nsMain["status"])
	assert.Equal(t, map[string]any{"x": "y"}, nsMain["metadata"].(map[string]any)["labels"])
	requireStatus(t, respCM, dataCM, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// TestHTTPPatchContentTypes checks the PATCH media types: merge, strategic
// merge (kubectl label), JSON patch, and 415 for apply and unknown types.
// Diagram: API. client-go: types.PatchType on the wire.
func TestHTTPPatchContentTypes(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

	tests := []struct {
		contentType, body string
		code              int
	}{
		{"application/merge-patch+json", `{"data":{"m":"1"}}`, http.StatusOK},
		{"application/strategic-merge-patch+json", `{"metadata":{"labels":{"l":"1"}}}`, http.StatusOK},
		{"application/json-patch+json", `[{"op":"add","path":"/data/j","value":"1"}]`, http.StatusOK},
		{"application/apply-patch+yaml", `{}`, http.StatusUnsupportedMediaType},
		{"application/json", `{}`, http.StatusUnsupportedMediaType},
		{"", `{}`, http.StatusUnsupportedMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			resp, data := do(t, ts, "PATCH", cmPath+"/a", tt.body, "Content-Type", tt.contentType)

			if tt.code != http.StatusOK {
				requireStatus(t, resp, data, tt.code, metav1.StatusReasonUnsupportedMediaType)
				return
			}
			require.Equal(t, tt.code, resp.StatusCode, string(data))
		})
	}
	got := mustGet(t, s.Resource(configMaps).Namespace("default"), "a")
	assert.Equal(t, map[string]any{"k": "v", "m": "1", "j": "1"}, got.Object["data"])
	assert.Equal(t, map[string]string{"l": "1"}, got.GetLabels())
}

// TestHTTPErrorsAreStatus checks that every failure path answers a
// metav1.Status with the real server's code and reason.
// Diagram: API. client-go: apierrors.FromObject on error bodies.
func TestHTTPErrorsAreStatus(t *testing.T) {
	s := newServer(t, fakeapi.Options{MaxRequestBodyBytes: 64})
	ts := httpServer(t, s)
	big := fmt.Sprintf(`{"metadata":{"name":"a"},"data":{"k":"%s"}}`, strings.Repeat("x", 100))

	tests := []struct {
		name, method, path, body string
		headers                  []string
		code                     int
		reason                   metav1.StatusReason
	}{
		{"unknown path", "GET", "/nope", "", nil, 404, metav1.StatusReasonNotFound},
		{"unknown resource", "GET", "/api/v1/widgets", "", nil, 404, metav1.StatusReasonNotFound},
		{"unknown group", "GET", "/apis/nope.io/v1", "", nil, 404, metav1.StatusReasonNotFound},
		{"namespaced item without namespace", "GET", "/api/v1/configmaps/a", "", nil, 404, metav1.StatusReasonNotFound},
		{"cluster resource in namespace", "GET", "/api/v1/namespaces/default/namespaces", "", nil, 404, metav1.StatusReasonNotFound},
		{"method", "PUT", cmPath, "{}", nil, 405, metav1.StatusReasonMethodNotAllowed},
		{"post to item", "POST", cmPath + "/a", "{}", nil, 405, metav1.StatusReasonMethodNotAllowed},
		{"bad json", "POST", cmPath, "{", nil, 400, metav1.StatusReasonBadRequest},
		{"invalid name", "POST", cmPath, `{"metadata":{"name":"A_B"}}`, nil, 422, metav1.StatusReasonInvalid},
		{"body too large", "POST", cmPath, big, nil, 413, metav1.StatusReasonRequestEntityTooLarge},
		{"protobuf body", "POST", cmPath, "\x0a\x00", []string{"Content-Type", "application/vnd.kubernetes.protobuf"}, 415, metav1.StatusReasonUnsupportedMediaType},
		{"yaml body", "POST", cmPath, "a: b", []string{"Content-Type", "application/yaml"}, 415, metav1.StatusReasonUnsupportedMediaType},
		{"protobuf only accept", "GET", cmPath, "", []string{"Accept", "application/vnd.kubernetes.protobuf"}, 406, metav1.StatusReasonNotAcceptable},
		{"bad query", "GET", cmPath + "?limit=abc", "", nil, 400, metav1.StatusReasonBadRequest},
		{"bad selector", "GET", cmPath + "?labelSelector=a+in+(", "", nil, 400, metav1.StatusReasonBadRequest},
		{"too large rv", "GET", cmPath + "?resourceVersion=100", "", nil, 504, metav1.StatusReasonTimeout},
		{"bad includeObject", "GET", cmPath + "?includeObject=All", "", nil, 400, metav1.StatusReasonBadRequest},
		{"dry run", "POST", cmPath + "?dryRun=All", fmt.Sprintf(cmJSON, "d"), nil, 422, metav1.StatusReasonInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := do(t, ts, tt.method, tt.path, tt.body, tt.headers...)

			requireStatus(t, resp, data, tt.code, tt.reason)
		})
	}
}

// TestHTTPProtobufAcceptWithJSONFallbackGetsJSON checks that client-go's
// default Accept (protobuf, then JSON) is served JSON.
// Diagram: step 1. client-go: rest.Config.AcceptContentTypes.
func TestHTTPProtobufAcceptWithJSONFallbackGetsJSON(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)

	resp, data := do(t, ts, "GET", cmPath, "", "Accept", "application/vnd.kubernetes.protobuf, application/json")

	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, "ConfigMapList", asMap(t, data)["kind"])
}

// TestHTTPBearerToken checks authentication: 401 Status without or with a
// wrong token, success with it; health and version stay public.
// Diagram: API. client-go: rest.Config.BearerToken.
func TestHTTPBearerToken(t *testing.T) {
	s := newServer(t, fakeapi.Options{Token: "s3cret"})
	ts := httpServer(t, s)

	respNone, dataNone := do(t, ts, "GET", cmPath, "")
	respWrong, dataWrong := do(t, ts, "GET", cmPath, "", "Authorization", "Bearer nope")
	respOK, _ := do(t, ts, "GET", cmPath, "", "Authorization", "Bearer s3cret")
	respAdmin, _ := do(t, ts, "GET", "/admin/faults", "")
	respHealth, health := do(t, ts, "GET", "/healthz", "")
	respVersion, _ := do(t, ts, "GET", "/version", "")

	requireStatus(t, respNone, dataNone, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	requireStatus(t, respWrong, dataWrong, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	assert.Equal(t, http.StatusOK, respOK.StatusCode)
	assert.Equal(t, http.StatusUnauthorized, respAdmin.StatusCode)
	assert.Equal(t, http.StatusOK, respHealth.StatusCode)
	assert.Equal(t, "ok", string(health))
	assert.Equal(t, http.StatusOK, respVersion.StatusCode)
}

// TestHTTPFailNextAppliesOverHTTP checks that injected failures reach HTTP
// clients as their Status.
// Diagram: step 1. client-go: the reflector's backoff on list errors.
func TestHTTPFailNextAppliesOverHTTP(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	require.NoError(t, s.FailNext("list", 1, http.StatusTooManyRequests))
	require.NoError(t, s.FailNext("watch", 1, http.StatusGone))

	resp, data := do(t, ts, "GET", cmPath, "")
	respW, dataW := do(t, ts, "GET", cmPath+"?watch=true", "")
	resp2, _ := do(t, ts, "GET", cmPath, "")

	st := requireStatus(t, resp, data, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests)
	assert.Equal(t, int32(1), st.Details.RetryAfterSeconds)
	requireStatus(t, respW, dataW, http.StatusGone, metav1.StatusReasonExpired)
	assert.Equal(t, http.StatusOK, resp2.StatusCode)
}

// TestHTTPPaginationTokensRoundTrip checks limit/continue over HTTP and a
// continue token expiring after compaction (410).
// Diagram: step 1. client-go: tools/pager over REST.
func TestHTTPPaginationTokensRoundTrip(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	seed(t, s)

	_, data := do(t, ts, "GET", cmPath+"?limit=2", "")
	page1 := asMap(t, data)
	md := page1["metadata"].(map[string]any)
	cont := md["continue"].(string)
	_, data2 := do(t, ts, "GET", cmPath+"?limit=2&continue="+cont, "")
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "z"))
	s.Compact() // the token's snapshot (rv 7) is now older than the history
	resp3, data3 := do(t, ts, "GET", cmPath+"?limit=2&continue="+cont, "")

	assert.Equal(t, float64(3), md["remainingItemCount"])
	assert.Len(t, asMap(t, data2)["items"], 2)
	requireStatus(t, resp3, data3, http.StatusGone, metav1.StatusReasonExpired)
}

// TestHTTPRequestsAreLogged checks the request log: one slog line per
// request with method, URI and status.
// Diagram: API. client-go: none (server-side request logging).
func TestHTTPRequestsAreLogged(t *testing.T) {
	var logs syncBuffer
	s := newServer(t, fakeapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ts := httpServer(t, s)

	do(t, ts, "GET", cmPath+"/missing", "")

	// The line is written after the response, so wait for it (with a deadline).
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "status=404") }, wait, time.Millisecond)
	line := logs.String()
	assert.Contains(t, line, "msg=\"fakeapi request\"")
	assert.Contains(t, line, "method=GET")
	assert.Contains(t, line, "uri="+cmPath+"/missing")
	assert.Contains(t, line, "status=404")
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
