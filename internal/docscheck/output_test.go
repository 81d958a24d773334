package docscheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The docs quote what a command prints in a fenced block marked "output",
// right after the command (only blank lines between):
//
//	```sh
//	go test ./walkthrough -run TestConfusionQueueHoldsKeys -v
//	```
//	```output
//	the key queue holds 2 items, the object queue 6
//	...
//	```
//
// The command is the last go test command of the code block, indented code
// line or line of prose just before the output block. Every line of the
// block must appear, in order, in the command's output: as part of one of
// its lines, once the "file_test.go:12: " prefix t.Log puts there is
// removed. A line "..." stands for lines left out and is not matched.

// outputBlock is one quoted output and the command it belongs to.
type outputBlock struct {
	line  int // of the ```output fence
	cmd   *goTestCommand
	lines []string // the quoted lines, "..." left out
}

var outputFence = regexp.MustCompile("^\\s*(```+|~~~+)\\s*output\\s*$")

// outputBlocks finds the output blocks of a markdown document. A block that
// follows no go test command is reported as a problem, as is a block whose
// command has no -v (go test would print nothing to match) or no -run.
func outputBlocks(markdown string) ([]outputBlock, []string) {
	lines := strings.Split(markdown, "\n")
	var blocks []outputBlock
	var problems []string
	for i := 0; i < len(lines); i++ {
		m := outputFence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		fence := m[1]
		b := outputBlock{line: i + 1}
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), fence); j++ {
			if l := strings.TrimSpace(lines[j]); l != "" && l != "..." {
				b.lines = append(b.lines, l)
			}
		}
		b.cmd = commandBefore(lines, i)
		switch {
		case j == len(lines):
			problems = append(problems, fmt.Sprintf("line %d: the output block is never closed", b.line))
		case b.cmd == nil:
			problems = append(problems, fmt.Sprintf("line %d: an output block with no go test command right before it", b.line))
		case !b.cmd.verbose || b.cmd.run == nil || b.cmd.bench != nil || b.cmd.fuzz != nil:
			problems = append(problems, fmt.Sprintf("line %d: %s: quote the output only of go test -run X -v", b.line, b.cmd.text))
		case len(b.lines) == 0:
			problems = append(problems, fmt.Sprintf("line %d: an empty output block", b.line))
		default:
			blocks = append(blocks, b)
		}
		i = j
	}
	return blocks, problems
}

// commandBefore returns the last go test command of what precedes line at
// (skipping blank lines): a fenced code block, or a single line.
func commandBefore(lines []string, at int) *goTestCommand {
	k := at - 1
	for k >= 0 && strings.TrimSpace(lines[k]) == "" {
		k--
	}
	if k < 0 {
		return nil
	}
	from := k
	if t := strings.TrimSpace(lines[k]); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		from = k - 1
		for from >= 0 && !strings.HasPrefix(strings.TrimSpace(lines[from]), t[:3]) {
			from--
		}
		if from < 0 {
			return nil
		}
	}
	cmds := goTestCommands(strings.Join(lines[from:k+1], "\n"))
	if len(cmds) == 0 {
		return nil
	}
	cmd := cmds[len(cmds)-1]
	cmd.line += from
	return &cmd
}

// logPrefix is what t.Log puts before a line: "    file_test.go:12: ".
var logPrefix = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: ?`)

// missingLines returns the quoted lines that do not appear, in order, in
// output: the first one not found, and every one after it.
func missingLines(quoted []string, output string) []string {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		lines = append(lines, strings.TrimSpace(logPrefix.ReplaceAllString(l, "")))
	}
	next := 0
	for i, q := range quoted {
		found := false
		for ; next < len(lines); next++ {
			if strings.Contains(lines[next], q) {
				found = true
				next++
				break
			}
		}
		if !found {
			return quoted[i:]
		}
	}
	return nil
}

// TestDocsQuotedOutputAppearsInCommandOutput runs every go test command of
// README.md and docs/*.md that is followed by an output block, once per
// distinct command, and checks that its -v output holds the quoted lines in
// order. The commands run as a reader runs them (without -count=1, so go
// test may replay a cached result of the same code).
// Diagram: all steps. client-go: none (the docs' commands).
func TestDocsQuotedOutputAppearsInCommandOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command the docs quote the output of; not in -short mode")
	}
	root := repoRoot(t)
	type quoted struct {
		cmd    goTestCommand
		blocks []string // doc:line of each block
		lines  [][]string
	}
	var order []string
	byCmd := map[string]*quoted{}
	for _, doc := range docFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		blocks, problems := outputBlocks(string(text))
		for _, p := range problems {
			t.Errorf("%s: %s", doc, p)
		}
		for _, b := range blocks {
			key := b.cmd.dir + "\x00" + strings.Join(b.cmd.args, "\x00")
			q := byCmd[key]
			if q == nil {
				q = &quoted{cmd: *b.cmd}
				byCmd[key] = q
				order = append(order, key)
			}
			q.blocks = append(q.blocks, fmt.Sprintf("%s:%d", doc, b.line))
			q.lines = append(q.lines, b.lines)
		}
	}
	require.NotEmpty(t, order, "no output blocks found: is the parser broken?")

	blocks := 0
	for _, key := range order {
		q := byCmd[key]
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := runDocCommand(ctx, root, q.cmd)
		cancel()
		if !assert.NoError(t, err, "%s\n%s", strings.Join(q.blocks, ", "), out) {
			continue
		}
		for i, want := range q.lines {
			blocks++
			if missing := missingLines(want, out); len(missing) > 0 {
				t.Errorf("%s: %s does not print, in this order:\n\t%s\nIt printed:\n%s",
					q.blocks[i], q.cmd.text, strings.Join(missing, "\n\t"), out)
			}
		}
	}
	t.Logf("%d output blocks checked against the output of %d commands", blocks, len(order))
}

// TestOutputBlocksAreFoundAndMatched runs the output-block finder and the
// line matcher on a small document and a small output.
// Diagram: none. client-go: none.
func TestOutputBlocksAreFoundAndMatched(t *testing.T) {
	doc := "# Title\n" +
		"```sh\n" +
		"go test ./a -run TestA -v\n" +
		"```\n" +
		"\n" +
		"```output\n" +
		"first line\n" +
		"...\n" +
		"second\n" +
		"```\n" +
		"Run `go test ./b -run TestB -v` and see:\n" +
		"```output\n" +
		"b says\n" +
		"```\n" +
		"    cd e2e && go test -run TestE -v\n" +
		"```output\n" +
		"e says\n" +
		"```\n" +
		"Prose with no command.\n" +
		"```output\n" +
		"orphan\n" +
		"```\n" +
		"`go test ./c -run TestC`\n" +
		"```output\n" +
		"no -v\n" +
		"```\n" +
		"`go test ./d -run TestD -v`\n" +
		"```output\n" +
		"```\n" +
		"`go test ./f -run TestF -v`\n" +
		"```output\n" +
		"never closed\n"

	blocks, problems := outputBlocks(doc)

	require.Len(t, blocks, 3)
	assert.Equal(t, "go test ./a -run TestA -v", blocks[0].cmd.text)
	assert.Equal(t, 3, blocks[0].cmd.line)
	assert.Equal(t, []string{"first line", "second"}, blocks[0].lines)
	assert.Equal(t, "go test ./b -run TestB -v", blocks[1].cmd.text)
	assert.Equal(t, "e2e", blocks[2].cmd.dir)
	assert.Len(t, problems, 4, "an orphan, a command without -v, an empty block, an unclosed block: %q", problems)

	output := "=== RUN   TestA\n" +
		"    a_test.go:10: first line, and more\n" +
		"    a_test.go:11: something else\n" +
		"    helpers_test.go:7:    second: indented\n" +
		"--- PASS: TestA (0.00s)\n"
	assert.Empty(t, missingLines([]string{"first line", "second: indented"}, output))
	assert.Empty(t, missingLines([]string{"=== RUN   TestA", "--- PASS"}, output))
	assert.Equal(t, []string{"first line"}, missingLines([]string{"second", "first line"}, output), "order matters")
	assert.Equal(t, []string{"absent", "second"}, missingLines([]string{"first line", "absent", "second"}, output))
}
