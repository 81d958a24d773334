package fakeapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
)

// httpServer serves s over a real socket for the duration of the test.
func httpServer(t *testing.T, s *fakeapi.Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close() // ends open watches so Close below does not wait for them
		ts.Close()
	})
	return ts
}

// do sends a request; headers are "Name", "value" pairs.
func do(t *testing.T, ts *httptest.Server, method, path, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, rd)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	t.Logf("%s %s -> %s", method, path, resp.Status)
	return resp, data
}

// asMap decodes a JSON object.
func asMap(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), string(data))
	return m
}

// requireStatus checks a response is a well-formed failure Status with
// the given code and reason, and returns it.
func requireStatus(t *testing.T, resp *http.Response, data []byte, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	require.Equal(t, code, resp.StatusCode, string(data))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(data, &st), string(data))
	assert.Equal(t, "Status", st.Kind)
	assert.Equal(t, "v1", st.APIVersion)
	assert.Equal(t, metav1.StatusFailure, st.Status)
	assert.Equal(t, int32(code), st.Code)
	assert.Equal(t, reason, st.Reason, st.Message)
	return st
}

// stream is an open watch over HTTP, one decoded event per line.
type stream struct {
	resp   *http.Response
	events chan map[string]any
	raw    chan string
}

func openWatch(t *testing.T, ts *httptest.Server, path string, headers ...string) *stream {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	t.Logf("GET %s -> %s, a stream", path, resp.Status)
	t.Cleanup(func() { resp.Body.Close() })
	st := &stream{resp: resp, events: make(chan map[string]any, 100), raw: make(chan string, 100)}
	go func() {
		defer close(st.events)
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			st.raw <- line
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) != nil {
				return
			}
			st.events <- ev
		}
	}()
	return st
}

const wait = 5 * time.Second

// next returns the next event's type and object, failing after a deadline.
func (st *stream) next(t *testing.T) (string, map[string]any) {
	t.Helper()
	select {
	case ev, ok := <-st.events:
		require.True(t, ok, "watch stream ended, wanted an event")
		obj, _ := ev["object"].(map[string]any)
		if msg, isStatus := obj["message"]; isStatus && obj["kind"] == "Status" {
			t.Logf("   the stream delivers %v %v: %v", ev["type"], obj["code"], msg)
		} else {
			t.Logf("   the stream delivers %v %v", ev["type"], objName(obj))
		}
		return ev["type"].(string), obj
	case <-time.After(wait):
		t.Fatal("no watch event before the deadline")
	}
	return "", nil
}

// expectEnd waits for the end of the stream.
func (st *stream) expectEnd(t *testing.T) {
	t.Helper()
	select {
	case ev, ok := <-st.events:
		require.False(t, ok, "wanted the end of the stream, got %v", ev)
		t.Log("   the stream ends")
	case <-time.After(wait):
		t.Fatal("watch stream still open after the deadline")
	}
}

func objName(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	return n
}

func objRV(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	n, _ := md["resourceVersion"].(string)
	return n
}

const cmJSON = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"},"data":{"k":"v"}}`

// kubectlAccept is what kubectl 1.32 sends for get.
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
