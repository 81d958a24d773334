package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/story.golden")

// syncBuffer is an io.Writer safe for concurrent use, with a hook called
// after each write (under no lock).
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	onWrite func(s string)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.b.Write(p)
	s := b.b.String()
	b.mu.Unlock()
	if b.onWrite != nil {
		b.onWrite(s)
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// deterministic is the env of the golden test: run inside a synctest
// bubble, with the gate settling on synctest.Wait.
func deterministic() env {
	return env{settle: synctest.Wait, getenv: func(string) string { return "" }}
}

// TestStoryTranscriptMatchesGolden plays the whole story in deterministic
// mode and compares the transcript with testdata/story.golden: any change
// to what a learner sees shows up in review. Regenerate with -update.
// Diagram: steps 1-9. client-go: sample-controller's Foo controller.
func TestStoryTranscriptMatchesGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer

		err := runWith(t.Context(), []string{"--no-color"}, strings.NewReader(""), &out, &out, deterministic())

		require.NoError(t, err)
		golden := filepath.Join("testdata", "story.golden")
		if *update {
			require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err)
		assert.Equal(t, string(want), out.String())
	})
}

// TestStoryIsDeterministic plays the story twice and gets the same bytes:
// the gate makes the transcript independent of goroutine scheduling.
// Diagram: steps 1-9. client-go: none.
func TestStoryIsDeterministic(t *testing.T) {
	var outs [2]string
	for i := range outs {
		synctest.Test(t, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, runWith(t.Context(), []string{"--no-color", "--scenario", "watch"}, strings.NewReader(""), &out, &out, deterministic()))
			outs[i] = out.String()
		})
	}

	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[0], "410 Expired")
	assert.Contains(t, outs[0], "DeletedFinalStateUnknown")
}

// TestCancelMidStoryExitsCleanly cancels the context in the middle of the
// story (Ctrl-C): run returns nil, says so, and every goroutine has exited
// (synctest.Test fails if any is left in the bubble).
// Diagram: steps 1-9. client-go: none.
func TestCancelMidStoryExitsCleanly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		out := &syncBuffer{onWrite: func(s string) {
			if strings.Contains(s, "Chapter 3") {
				cancel()
			}
		}}

		err := runWith(ctx, []string{"--no-color"}, strings.NewReader(""), out, out, deterministic())

		require.NoError(t, err)
		assert.Contains(t, out.String(), "Interrupted")
		assert.NotContains(t, out.String(), "Chapter 4")
	})
}

// TestStepWaitsForEnterBeforeEachChapter feeds two lines on stdin: the first
// two chapters play, and the prompt appears before each.
// Diagram: none. client-go: none.
func TestStepWaitsForEnterBeforeEachChapter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer

		err := runWith(t.Context(), []string{"--no-color", "--step", "--scenario", "basics"}, strings.NewReader("\n\n\n\n"), &out, &out, deterministic())

		require.NoError(t, err)
		assert.Equal(t, 4, strings.Count(out.String(), "press Enter"))
	})
}
