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

	"github.com/informerlab/informerlab/internal/demoengine"
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
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		t.Logf("the story's transcript, %d lines, is testdata/story.golden line for line; its chapters:", len(lines))
		for _, line := range lines {
			if strings.HasPrefix(line, "== ") {
				t.Log("   " + line)
			}
		}
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

// TestHelpExplainsEveryFlagWithExamples checks that --help names every flag
// and shows an example of each.
// Diagram: none. client-go: none.
func TestHelpExplainsEveryFlagWithExamples(t *testing.T) {
	var out, errOut bytes.Buffer

	err := run(t.Context(), []string{"--help"}, strings.NewReader(""), &out, &errOut)

	require.NoError(t, err)
	for _, f := range []string{"--scenario", "--list-scenarios", "--step", "--speed", "--no-color", "--verbose", "--server", "--kubeconfig", "--resource", "--namespace", "--simulate-deployments", "--shards"} {
		assert.GreaterOrEqual(t, strings.Count(out.String(), f), 2, "flag %s: described and shown in an example", f)
	}
	assert.Contains(t, out.String(), "NO_COLOR")
}

// TestListScenariosNamesEveryScenarioAndChapter lists the scenarios.
// Diagram: none. client-go: none.
func TestListScenariosNamesEveryScenarioAndChapter(t *testing.T) {
	var out bytes.Buffer

	err := run(t.Context(), []string{"--list-scenarios"}, strings.NewReader(""), &out, &out)

	require.NoError(t, err)
	scenarios := demoengine.Scenarios()
	require.NotEmpty(t, scenarios)
	for _, s := range scenarios {
		assert.Contains(t, out.String(), s.Name)
		for _, c := range s.Chapters {
			assert.Contains(t, out.String(), c)
		}
	}
}

// TestBadFlagsAreUsageErrors checks that bad command lines fail fast with a
// clear message and start nothing.
// Diagram: none. client-go: none.
func TestBadFlagsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "nope"}, `unknown scenario "nope" (known: story, basics`},
		{[]string{"--speed", "0"}, "--speed must be positive"},
		{[]string{"--server", "http://x", "--kubeconfig", "k"}, "exclude each other"},
		{[]string{"--resource", "a.b"}, "RESOURCE.VERSION.GROUP"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"--shards", "1"}, "--shards wants 2 or more replicas"},
		{[]string{"--shards", "3", "--server", "http://x"}, "embedded server only"},
	} {
		var out bytes.Buffer

		err := run(t.Context(), tc.args, strings.NewReader(""), &out, &out)

		var usage *usageError
		require.ErrorAs(t, err, &usage, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want)
		assert.Empty(t, out.String())
	}
}

// TestColourOnlyOnATerminalWithoutNoColor checks when escape codes appear.
// Diagram: none. client-go: none.
func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		noColor  string
		args     []string
		want     bool
	}{
		{"terminal", true, "", nil, true},
		{"pipe", false, "", nil, false},
		{"NO_COLOR", true, "1", nil, false},
		{"--no-color", true, "", []string{"--no-color"}, false},
	} {
		synctest.Test(t, func(t *testing.T) {
			var out bytes.Buffer
			e := deterministic()
			e.terminal = tc.terminal
			e.getenv = func(k string) string {
				if k == "NO_COLOR" {
					return tc.noColor
				}
				return ""
			}

			err := runWith(t.Context(), append([]string{"--scenario", "resync"}, tc.args...), strings.NewReader(""), &out, &out, e)

			require.NoError(t, err)
			assert.Equal(t, tc.want, strings.Contains(out.String(), "\x1b["), tc.name)
		})
	}
}

// TestVerboseShowsObjectDiffs checks that --verbose adds the fields a
// watch event changed, the Deployment simulator's own steps and the
// informers' dispatches, none of which the plain transcript shows.
// Diagram: steps 1, 6 and 8. client-go: none.
func TestVerboseShowsObjectDiffs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer

		err := runWith(t.Context(), []string{"--verbose", "--scenario", "basics"}, strings.NewReader(""), &out, &out, deterministic())

		require.NoError(t, err)
		assert.Contains(t, out.String(), "~ spec.replicas: 3 → 5")
		assert.Contains(t, out.String(), "[8 get key]      deployment-simulator worker: Get() → default/web-nginx")
		assert.Contains(t, out.String(), "(Deployment informer) dispatch OnAdd default/web-nginx to 2 handler(s)")

		var plain bytes.Buffer
		require.NoError(t, runWith(t.Context(), []string{"--scenario", "basics"}, strings.NewReader(""), &plain, &plain, deterministic()))
		assert.NotContains(t, plain.String(), "~ spec.replicas")
		assert.NotContains(t, plain.String(), "deployment-simulator worker")
	})
}

// TestLiveTranscriptPrintsWritesBeforeTheirEvents plays the basics
// scenario live (no gate, real goroutines and clock, as a learner runs it)
// and checks cause before effect: every write that made resourceVersion N,
// yours or the controllers', is printed before the first watch event
// carrying N, although the event can reach its Reflector before the
// writer has its answer.
// Diagram: steps 1 and 9 (API write → watch event). client-go: none.
func TestLiveTranscriptPrintsWritesBeforeTheirEvents(t *testing.T) {
	var out syncBuffer

	err := runWith(t.Context(), []string{"--no-color", "--scenario", "basics", "--speed", "100"}, strings.NewReader(""), &out, &out,
		env{getenv: func(string) string { return "" }})

	require.NoError(t, err)
	writeAt := map[string]int{}
	lines := strings.Split(out.String(), "\n")
	for i, line := range lines {
		if before, rv, ok := strings.Cut(line, "[API write]"); ok && before != "" {
			if _, after, found := strings.Cut(rv, "→ rv "); found {
				writeAt[strings.Fields(after)[0]] = i
			}
		}
	}
	require.NotEmpty(t, writeAt)
	for i, line := range lines {
		_, ev, ok := strings.Cut(line, "watch event ")
		if !ok {
			continue
		}
		f := strings.Fields(ev)
		rv := f[len(f)-1]
		if at, ok := writeAt[rv]; ok {
			assert.Less(t, at, i, "the write that made rv %s prints before its event:\n%s\n%s", rv, lines[at], line)
		}
	}
}
