package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// TestWebFlagsAreDescribedAndChecked: --help explains --web and
// --web-addr with an example each, and a --web-addr that is not HOST:PORT
// is a usage error.
// Diagram: none. client-go: none.
func TestWebFlagsAreDescribedAndChecked(t *testing.T) {
	var help, out bytes.Buffer

	require.NoError(t, run(t.Context(), []string{"--help"}, strings.NewReader(""), &help, &help))
	err := run(t.Context(), []string{"--web", "--web-addr", "8080"}, strings.NewReader(""), &out, &out)

	for _, f := range []string{"--web ", "--web-addr"} {
		assert.GreaterOrEqual(t, strings.Count(help.String(), f), 2, "flag %s: described and shown in an example", f)
	}
	var usage *usageError
	require.ErrorAs(t, err, &usage)
	assert.Contains(t, err.Error(), `--web-addr "8080": want HOST:PORT`)
	assert.Empty(t, out.String())
}

// startWeb runs `demo --web` on a free port until the test ends and
// returns the page's URL, the output and a stop that cancels the run and
// returns its result.
func startWeb(t *testing.T) (base string, out *syncBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	urls := make(chan string, 1)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	out = &syncBuffer{onWrite: func(s string) {
		if u := url.FindString(s); u != "" {
			select {
			case urls <- u:
			default:
			}
		}
	}}
	done := make(chan error, 1)
	go func() {
		done <- runWith(ctx, []string{"--web", "--web-addr", "127.0.0.1:0", "--no-color"}, strings.NewReader(""), out, out, env{getenv: func(string) string { return "" }})
	}()
	var result error
	stopped := false
	stop = func() error {
		if !stopped {
			cancel()
			result, stopped = <-done, true
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	select {
	case base = <-urls:
	case err := <-done:
		require.FailNow(t, "demo --web ended before serving", "%v\n%s", err, out)
	case <-time.After(30 * time.Second):
		require.FailNow(t, "demo --web printed no URL", "%s", out)
	}
	return base, out, stop
}

// control POSTs an action as the page does: JSON, with the page's token.
func control(t *testing.T, base, page, body string) map[string]string {
	t.Helper()
	m := regexp.MustCompile(`<meta name="control-token" content="([^"]+)">`).FindStringSubmatch(page)
	require.NotNil(t, m, "the page carries its control token")
	req, err := http.NewRequest(http.MethodPost, base+"api/control", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(pipelineweb.TokenHeader, m[1])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

// waitReconciled polls the page's state until the foo controller's last
// Reconcile is Foo default/name's, and reports whether it came.
func waitReconciled(t *testing.T, base, name string) bool {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		var st pipelineweb.State
		require.NoError(t, json.Unmarshal([]byte(get(t, base+"api/state")), &st))
		for _, q := range st.Queues {
			if q.Controller == "foo" && strings.Contains(q.Last, "default/"+name+": done") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond) // polling a real server: nothing to wait on
	}
	return false
}

// TestWebServesThePageWhileTheControllerRuns runs `demo --web` on a free
// port: it prints the page's URL, serves the page and its state, creates a
// Foo from the controls, which the controller reconciles, and stops
// cleanly when cancelled. It crosses a real socket: it waits with
// deadlines, not in a bubble.
// Diagram: steps 1-9. client-go: none.
func TestWebServesThePageWhileTheControllerRuns(t *testing.T) {
	base, out, stop := startWeb(t)

	page := get(t, base)
	created := control(t, base, page, `{"name":"create","args":{"name":"web","replicas":"2"}}`)
	converged := waitReconciled(t, base, "web")
	err := stop()

	assert.Contains(t, page, `<svg id="diagram"`)
	assert.Contains(t, created["message"], "Foo default/web created")
	assert.True(t, converged, "the controller reconciled Foo default/web\n%s", out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "[1 list&watch]", "the terminal narrates as usual")
	assert.Contains(t, out.String(), "you: CREATE Foo default/web")
	assert.Contains(t, out.String(), "Bye.")
}

// TestWebRefusesWhatAPageOfAnotherSiteCanSend makes, against a running
// `demo --web`, the requests a page of another site can make: a text/plain
// POST from another origin, a form, a JSON POST through a rebound DNS
// name, a read through it, and a JSON POST without the page's token. Each
// is 403 with the reason as the page's {"error"}; then the page's own
// create goes through, and once the controller has reconciled it, none of
// the refused Foos exists (a created one would have come first).
// Diagram: API. client-go: none.
func TestWebRefusesWhatAPageOfAnotherSiteCanSend(t *testing.T) {
	base, out, _ := startWeb(t)
	page := get(t, base)
	send := func(method, url, host, contentType, origin, body string) (int, string) {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(data)
	}
	create := func(name string) string { return `{"name":"create","args":{"name":"` + name + `","replicas":"1"}}` }

	type answer struct {
		code int
		body string
	}
	var got []answer
	for _, r := range []struct{ method, path, host, contentType, origin, body string }{
		{"POST", "api/control", "", "text/plain", strings.TrimSuffix(base, "/"), create("plain")},
		{"POST", "api/control", "", "application/x-www-form-urlencoded", "http://127.0.0.1:1", "name=create&args=form"},
		{"POST", "api/control", "rebound.example:" + port(t, base), "application/json", "", create("rebound")},
		{"GET", "api/state", "rebound.example:" + port(t, base), "", "", ""},
		{"POST", "api/control", "", "application/json", "", create("notoken")},
	} {
		code, body := send(r.method, base+r.path, r.host, r.contentType, r.origin, r.body)
		got = append(got, answer{code, body})
	}
	mine := control(t, base, page, create("mine"))
	reconciled := waitReconciled(t, base, "mine")
	var st pipelineweb.State
	require.NoError(t, json.Unmarshal([]byte(get(t, base+"api/state")), &st))
	stateJSON, err := json.Marshal(st)
	require.NoError(t, err)

	for i, want := range []string{
		`not Content-Type \"text/plain\"`,
		"from the page at",
		`Host \"rebound.example:`,
		`Host \"rebound.example:`,
		"needs the token of the page",
	} {
		assert.Equal(t, http.StatusForbidden, got[i].code, "request %d: %s", i, got[i].body)
		assert.Contains(t, got[i].body, `{"error":"`, "request %d answers in the page's shape", i)
		assert.Contains(t, got[i].body, want, "request %d", i)
	}
	assert.Contains(t, mine["message"], "Foo default/mine created")
	require.True(t, reconciled, "the page's own create was reconciled")
	for _, name := range []string{"plain", "form", "rebound", "notoken"} {
		assert.NotContains(t, string(stateJSON), "default/"+name+`"`, "no Foo %s was created", name)
	}
	assert.Contains(t, string(stateJSON), "default/mine")
	assert.Contains(t, out.String(), "the page's server refused POST /api/control: a POST request from the page at", "the terminal says what was refused")
}

// port returns the port of a URL such as http://127.0.0.1:8080/.
func port(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	return u.Port()
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", url, body)
	return string(body)
}
