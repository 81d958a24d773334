package demoengine

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// syncBuffer is an io.Writer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestWaitForAnswerSaysItWaitsThenGivesUp: a first request that never
// answers is given up on after 30 seconds, with a line every 5 seconds
// saying how long the demo has waited, and an error naming the server.
// Diagram: step 1. client-go: none (client-go waits silently).
func TestWaitForAnswerSaysItWaitsThenGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		n := &narrator{out: &out}
		start := time.Now()

		err := waitForAnswer(t.Context(), n, "http://127.0.0.1:6443", defaultAnswerWithin, defaultProgressEvery, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})

		require.ErrorIs(t, err, ErrNoAnswer)
		assert.Equal(t, "demo: http://127.0.0.1:6443 accepted the connection but did not answer within 30s: is it an API server, and is it stuck? (no answer)", err.Error())
		assert.Equal(t, 30*time.Second, time.Since(start))
		for _, s := range []string{"5s", "10s", "15s", "20s", "25s"} {
			assert.Contains(t, out.String(), "waiting for http://127.0.0.1:6443 to answer ("+s+")\n")
		}
	})
}

// TestWaitForAnswerReturnsTheAnswer: an answer after 12 seconds ends the
// wait then, after two progress lines, with the request's own result.
// Diagram: step 1. client-go: none.
func TestWaitForAnswerReturnsTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		n := &narrator{out: &out}
		refused := errors.New("403 Forbidden")
		start := time.Now()

		err := waitForAnswer(t.Context(), n, "http://x", defaultAnswerWithin, defaultProgressEvery, func(ctx context.Context) error {
			time.Sleep(12 * time.Second) // the server's answer, in the bubble's time
			return refused
		})

		assert.Same(t, refused, err)
		assert.Equal(t, 12*time.Second, time.Since(start))
		assert.Equal(t, "waiting for http://x to answer (5s)\nwaiting for http://x to answer (10s)\n", out.String())
	})
}

// TestWebPageSpeaksTheTranscriptsTags: the page's tags are the text
// demo's, word for word.
// Diagram: steps 1-9. client-go: none.
func TestWebPageSpeaksTheTranscriptsTags(t *testing.T) {
	assert.Equal(t,
		[]string{tagList, tagFIFO, tagPop, tagIndexer, tagHandler, tagEnqueue, tagGetKey, tagListerGet, tagReconcile, tagWrite, tagStory},
		[]string{pipelineweb.TagList, pipelineweb.TagFIFO, pipelineweb.TagPop, pipelineweb.TagIndexer, pipelineweb.TagHandler,
			pipelineweb.TagEnqueue, pipelineweb.TagGetKey, pipelineweb.TagListerGet, pipelineweb.TagReconcile, pipelineweb.TagWrite, pipelineweb.TagStory})
}
