package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// TestWebPageSpeaksTheTranscriptsTags: the page's tags are the text
// demo's, word for word.
// Diagram: steps 1-9. client-go: none.
func TestWebPageSpeaksTheTranscriptsTags(t *testing.T) {
	assert.Equal(t,
		[]string{tagList, tagFIFO, tagPop, tagIndexer, tagHandler, tagEnqueue, tagGetKey, tagListerGet, tagReconcile, tagWrite, tagStory},
		[]string{pipelineweb.TagList, pipelineweb.TagFIFO, pipelineweb.TagPop, pipelineweb.TagIndexer, pipelineweb.TagHandler,
			pipelineweb.TagEnqueue, pipelineweb.TagGetKey, pipelineweb.TagListerGet, pipelineweb.TagReconcile, pipelineweb.TagWrite, pipelineweb.TagStory})
}

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

// TestWebServesThePageWhileTheControllerRuns runs `demo --web` on a free
// port: it prints the page's URL, serves the page and its state, creates a
// Foo from the controls, which the controller reconciles, and stops
// cleanly when cancelled. It crosses a real socket: it waits with
// deadlines, not in a bubble.
// Diagram: steps 1-9. client-go: none.
func TestWebServesThePageWhileTheControllerRuns(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	urls := make(chan string, 1)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	out := &syncBuffer{onWrite: func(s string) {
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
	var base string
	select {
	case base = <-urls:
	case err := <-done:
		require.FailNow(t, "demo --web ended before serving", "%v\n%s", err, out)
	case <-time.After(30 * time.Second):
		require.FailNow(t, "demo --web printed no URL", "%s", out)
	}

	page := get(t, base)
	resp, err := http.Post(base+"api/control", "application/json", strings.NewReader(`{"name":"create","args":{"name":"web","replicas":"2"}}`))
	require.NoError(t, err)
	var created map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	resp.Body.Close()
	converged := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !converged; {
		var st pipelineweb.State
		require.NoError(t, json.Unmarshal([]byte(get(t, base+"api/state")), &st))
		for _, q := range st.Queues {
			converged = converged || (q.Controller == "foo" && strings.Contains(q.Last, "default/web: done"))
		}
		if !converged {
			time.Sleep(20 * time.Millisecond) // polling a real server: nothing to wait on
		}
	}
	cancel()
	err = <-done

	assert.Contains(t, page, `<svg id="diagram"`)
	assert.Contains(t, created["message"], "Foo default/web created")
	assert.True(t, converged, "the controller reconciled Foo default/web\n%s", out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "[1 list&watch]", "the terminal narrates as usual")
	assert.Contains(t, out.String(), "you: CREATE Foo default/web")
	assert.Contains(t, out.String(), "Bye.")
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
