package pipelineweb_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// fakeControls knows one action, "create", which needs a name.
type fakeControls struct{ rec *pipelineweb.Recorder }

func (fakeControls) Info() pipelineweb.Info {
	return pipelineweb.Info{Mode: "a test", Namespace: "default", Faults: true}
}

func (fakeControls) Status() pipelineweb.Status { return pipelineweb.Status{ServerRV: "7"} }

func (c fakeControls) Do(_ context.Context, a pipelineweb.Action) (string, error) {
	if a.Name != "create" {
		return "", pipelineweb.ErrUnknownAction
	}
	if a.Arg("name") == "" {
		return "", errors.New("create: a name is needed")
	}
	c.rec.Publish(pipelineweb.Event{Op: pipelineweb.OpYou, Kind: "Foo", Key: "default/" + a.Arg("name"), Text: "you: CREATE"})
	return "created", nil
}

func newTestServer(t *testing.T) (*httptest.Server, *pipelineweb.Recorder) {
	t.Helper()
	model := pipelineweb.NewModel()
	hub := pipelineweb.NewHub(model, 100)
	rec := pipelineweb.NewRecorder(hub, model)
	srv := httptest.NewServer(pipelineweb.NewServer(hub, model, rec, fakeControls{rec: rec}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// pageToken reads the control token from the page the server serves, as
// app.js does.
func pageToken(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	m := regexp.MustCompile(`<meta name="control-token" content="([^"]+)">`).FindSubmatch(page)
	require.NotNil(t, m, "the page carries a control token")
	return string(m[1])
}

// post sends a control as the page does, with the page's token.
func post(t *testing.T, url, body string) (int, map[string]string) {
	t.Helper()
	return postWithToken(t, url, body, pageToken(t, url))
}

func postWithToken(t *testing.T, url, body, token string) (int, map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/api/control", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set(pipelineweb.TokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// TestServerControlsNeedThePagesToken: the page carries a token made for
// this server; a control without it, or with another server's, is 403 and
// does nothing; with it, the control runs.
// Diagram: none. client-go: none.
func TestServerControlsNeedThePagesToken(t *testing.T) {
	srv, rec := newTestServer(t)
	other, _ := newTestServer(t)
	token, otherToken := pageToken(t, srv.URL), pageToken(t, other.URL)

	noneCode, none := postWithToken(t, srv.URL, `{"name":"create","args":{"name":"web"}}`, "")
	wrongCode, wrong := postWithToken(t, srv.URL, `{"name":"create","args":{"name":"web"}}`, otherToken)
	marker := rec.Publish(pipelineweb.Event{Op: pipelineweb.OpStory, Text: "after the refusals"})
	rightCode, right := postWithToken(t, srv.URL, `{"name":"create","args":{"name":"web"}}`, token)

	assert.NotEqual(t, token, otherToken, "each server makes its own token")
	assert.GreaterOrEqual(t, len(token), 26, "at least 128 random bits")
	assert.Equal(t, http.StatusForbidden, noneCode)
	assert.Contains(t, none["error"], "pipelineweb: refused: a control needs the token of the page this demo served")
	assert.Equal(t, http.StatusForbidden, wrongCode)
	assert.Contains(t, wrong["error"], "reload the page")
	assert.Equal(t, uint64(1), marker.Seq, "a refused control published nothing")
	assert.Equal(t, http.StatusOK, rightCode)
	assert.Equal(t, "created", right["message"])
}

// TestServerServesThePageWithItsAssetsEmbedded: the page, its script and
// its stylesheet come from the binary; the page references nothing else.
// Diagram: all steps. client-go: none.
func TestServerServesThePageWithItsAssetsEmbedded(t *testing.T) {
	srv, _ := newTestServer(t)

	for path, want := range map[string]string{"/": "<svg id=\"diagram\"", "/app.js": "EventSource", "/style.css": "prefers-reduced-motion"} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)

		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Contains(t, string(body), want, path)
		assert.NotContains(t, string(body), "https://", "%s loads nothing from the network", path)
	}
}

// TestServerControlsAnswerBadInputWithAClearError: malformed requests and
// unknown actions are 400; a refused action says why; none of them panics
// or changes anything.
// Diagram: none. client-go: none.
func TestServerControlsAnswerBadInputWithAClearError(t *testing.T) {
	srv, _ := newTestServer(t)

	for _, tc := range []struct {
		body, want string
		code       int
	}{
		{`{`, "bad control request", http.StatusBadRequest},
		{`{"name":"create","extra":1}`, "bad control request", http.StatusBadRequest},
		{`{"name":"explode"}`, `unknown action "explode"`, http.StatusBadRequest},
		{`{"name":"create"}`, "a name is needed", http.StatusOK},
		{`{"name":"step"}`, "not paused", http.StatusOK},
		{`{"name":"speed","args":{"value":"7"}}`, "not a number in (0, 1]", http.StatusOK},
		{`{"name":"slow-handler","args":{"ms":"lots"}}`, "not a whole number", http.StatusOK},
		{`{"name":"slow-handler","args":{"ms":"-5"}}`, "out of range", http.StatusOK},
	} {
		code, out := post(t, srv.URL, tc.body)

		assert.Equal(t, tc.code, code, tc.body)
		assert.Contains(t, out["error"], tc.want, tc.body)
		assert.Empty(t, out["message"], tc.body)
	}
	resp, err := http.Get(srv.URL + "/api/object?kind=Foo&key=default/none")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestServerPauseStepAndResumeDriveTheValve: the playback controls change
// the valve, and the state snapshot shows it.
// Diagram: step 1. client-go: none.
func TestServerPauseStepAndResumeDriveTheValve(t *testing.T) {
	srv, rec := newTestServer(t)

	_, paused := post(t, srv.URL, `{"name":"pause"}`)
	_, stepped := post(t, srv.URL, `{"name":"step"}`)
	_, spaced := post(t, srv.URL, `{"name":"speed","args":{"value":"0.5"}}`)
	resp, err := http.Get(srv.URL + "/api/state")
	require.NoError(t, err)
	var st struct {
		Valve  pipelineweb.ValveState `json:"valve"`
		Status pipelineweb.Status     `json:"status"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	_, resumed := post(t, srv.URL, `{"name":"resume"}`)

	assert.Contains(t, paused["message"], "paused")
	assert.Contains(t, stepped["message"], "let through")
	assert.Contains(t, spaced["message"], "speed 0.5")
	assert.True(t, st.Valve.Paused)
	assert.Equal(t, 800.0, st.Valve.SpacingMS)
	assert.Equal(t, "7", st.Status.ServerRV)
	assert.Contains(t, resumed["message"], "resumed")
	assert.False(t, rec.Valve().State().Paused)
}

// sseReader reads Server-Sent Events from a response.
type sseReader struct{ sc *bufio.Scanner }

// next returns the next event's name and data.
func (r sseReader) next(t *testing.T) (string, string) {
	t.Helper()
	var name, data string
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && name != "":
			return name, data
		}
	}
	require.FailNow(t, "the event stream ended", "%v", r.sc.Err())
	return "", ""
}

// TestServerStreamsHelloThenEachBatchOfEvents opens the event stream: it
// starts with the history and the state, then carries each published event
// once, in order, as they come.
// Diagram: all steps. client-go: none.
func TestServerStreamsHelloThenEachBatchOfEvents(t *testing.T) {
	srv, rec := newTestServer(t)
	rec.Publish(pipelineweb.Event{Op: pipelineweb.OpStory, Text: "before"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	r := sseReader{sc: bufio.NewScanner(resp.Body)}
	r.sc.Buffer(make([]byte, 1<<20), 1<<20)

	name, data := r.next(t)
	var hello struct {
		Info    pipelineweb.Info    `json:"info"`
		History []pipelineweb.Event `json:"history"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &hello))
	_, created := post(t, srv.URL, `{"name":"create","args":{"name":"web"}}`)
	var batch []pipelineweb.Event
	for {
		name, data := r.next(t)
		if name == "batch" {
			require.NoError(t, json.Unmarshal([]byte(data), &batch))
			break
		}
	}

	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "hello", name)
	assert.Equal(t, "a test", hello.Info.Mode)
	require.Len(t, hello.History, 1)
	assert.Equal(t, "before", hello.History[0].Text)
	assert.Equal(t, "created", created["message"])
	require.Len(t, batch, 1)
	assert.Equal(t, uint64(2), batch[0].Seq)
	assert.Equal(t, "default/web", batch[0].Key)
}
