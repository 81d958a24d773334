package docscheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameworkLine matches the lines go test -v prints on its own: the start
// and end of each test, the package verdict, and its warnings.
var frameworkLine = regexp.MustCompile(`^(\s*=== (RUN|PAUSE|CONT|NAME)\s|\s*--- (PASS|FAIL|SKIP): |PASS$|FAIL$|ok\s|FAIL\s|\?\s|testing: warning: no tests to run|go: downloading )`)

// narration returns the lines of go test -v output that say something about
// the behaviour under test: every non-blank line that is not one of go
// test's own.
func narration(output string) []string {
	var lines []string
	for _, line := range strings.Split(output, "\n") {
		if strings.TrimSpace(line) == "" || frameworkLine.MatchString(line) {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}

// runDocCommand runs a documented go test command as a reader would: with
// its own arguments, in the directory its "cd DIR &&" names (the root if
// none). It returns the combined output; a non-nil error means the command
// failed or could not run.
func runDocCommand(ctx context.Context, root string, cmd goTestCommand) (string, error) {
	c := exec.CommandContext(ctx, "go", append([]string{"test"}, cmd.args...)...)
	c.Dir = filepath.Join(root, filepath.FromSlash(cmd.dir))
	out, err := c.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docscheck: %s: %w", cmd.text, err)
	}
	return string(out), nil
}

// narratedCommand is one documented `go test -run X -v` command and where
// the docs name it.
type narratedCommand struct {
	cmd    goTestCommand
	places []string // doc:line
}

// verboseRunCommands returns the distinct `go test ... -run X -v` commands
// (no -bench, no -fuzz) of the given documents, in the order they are first
// named.
func verboseRunCommands(t *testing.T, root string, docs []string) []*narratedCommand {
	t.Helper()
	byText := map[string]*narratedCommand{}
	var out []*narratedCommand
	for _, doc := range docs {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		for _, cmd := range goTestCommands(string(text)) {
			if cmd.run == nil || !cmd.verbose || cmd.bench != nil || cmd.fuzz != nil {
				continue
			}
			key := cmd.dir + "\x00" + strings.Join(cmd.args, "\x00")
			nc := byText[key]
			if nc == nil {
				nc = &narratedCommand{cmd: cmd}
				byText[key] = nc
				out = append(out, nc)
			}
			nc.places = append(nc.places, fmt.Sprintf("%s:%d", doc, cmd.line))
		}
	}
	return out
}

// TestDocsCommandsNarrate measures how many of the `go test -run X -v`
// commands in docs/*.md show the reader something: at least one line beyond
// go test's own === RUN, --- PASS, PASS and ok. It runs every such command
// (a few minutes, longer with a cold build cache), so it runs only when
// DOCSCHECK_NARRATION=1 is set:
//
//	DOCSCHECK_NARRATION=1 go test ./internal/docscheck -run TestDocsCommandsNarrate -v
//
// It logs each silent command and the totals, and fails if a command fails.
// DOCSCHECK_NARRATION=./deltafifo measures only the commands whose text
// contains ./deltafifo.
// Diagram: all steps. client-go: none (the docs' commands).
func TestDocsCommandsNarrate(t *testing.T) {
	filter := os.Getenv("DOCSCHECK_NARRATION")
	if filter == "" {
		t.Skip("runs every documented command; set DOCSCHECK_NARRATION=1 to measure")
	}
	root := repoRoot(t)
	var docs []string
	for _, doc := range docFiles(t, root) {
		if strings.HasPrefix(filepath.ToSlash(doc), "docs/") {
			docs = append(docs, doc)
		}
	}
	cmds := verboseRunCommands(t, root, docs)
	if filter != "1" {
		cmds = slices.DeleteFunc(cmds, func(nc *narratedCommand) bool { return !strings.Contains(nc.cmd.text, filter) })
	}
	require.NotEmpty(t, cmds)

	narrating, places, narratingPlaces := 0, 0, 0
	for _, nc := range cmds {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		out, err := runDocCommand(ctx, root, nc.cmd)
		cancel()
		places += len(nc.places)
		if !assert.NoError(t, err, "%s\n%s", strings.Join(nc.places, ", "), out) {
			continue
		}
		lines := narration(out)
		switch {
		case strings.Contains(out, "--- SKIP"):
			t.Logf("SKIPPED  %s  (%s)", nc.cmd.text, strings.Join(nc.places, ", "))
		case len(lines) == 0:
			t.Logf("SILENT   %s  (%s)", nc.cmd.text, strings.Join(nc.places, ", "))
		default:
			narrating++
			narratingPlaces += len(nc.places)
		}
	}
	t.Logf("%d of %d distinct commands narrate (%d of %d places in docs/*.md)",
		narrating, len(cmds), narratingPlaces, places)
}

// TestNarrationIgnoresGoTestsOwnLines checks the line classifier on the
// output of a passing, a skipped and a failing test.
// Diagram: none. client-go: none.
func TestNarrationIgnoresGoTestsOwnLines(t *testing.T) {
	silent := "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   ExampleB\n--- PASS: ExampleB (0.00s)\n" +
		"=== RUN   TestC/step_1\n    --- PASS: TestC/step_1 (0.00s)\n=== PAUSE TestD\n=== CONT  TestD\n" +
		"PASS\nok  \tgithub.com/x/y\t0.012s\nok  \tgithub.com/x/y\t(cached)\n" +
		"testing: warning: no tests to run\n\n"
	talking := "=== RUN   TestA\n    a_test.go:12: the cache holds 3 objects\n--- PASS: TestA (0.00s)\nPASS\n"

	assert.Empty(t, narration(silent))
	assert.Equal(t, []string{"    a_test.go:12: the cache holds 3 objects"}, narration(talking))
}
