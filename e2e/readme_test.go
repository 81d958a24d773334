package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeSection is the README section whose shell blocks the test runs.
const readmeSection = "## kubectl against the fake API server"

// readmePorts are the ports the section's servers listen on, as written.
var readmePorts = []int{18181, 18182}

// readmeDeadline bounds one block: it builds binaries, starts processes and
// waits for a Foo to become Ready.
const readmeDeadline = 5 * time.Minute

// shellBlock is a ```sh block of the README and the ```text block after
// it: the lines its reader is told to expect.
type shellBlock struct {
	line   int // where the block starts, for messages
	script string
	expect []string
}

// readmeBlocks returns the shell blocks of the section of markdown headed
// heading (up to the next heading of its level or above: "## x" ends at the
// next "## " or "# ", "#### x" at the next "####", "###", ...), each with
// the expected lines of the text block that follows it (before the next
// shell block).
func readmeBlocks(markdown, heading string) ([]shellBlock, error) {
	start := strings.Index(markdown, "\n"+heading+"\n")
	if start < 0 {
		return nil, fmt.Errorf("no section %q", heading)
	}
	section := markdown[start+1:]
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	inCode, off := false, len(heading)+1
	for _, line := range strings.SplitAfter(section[off:], "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		if !inCode && hashes > 0 && hashes <= level && strings.HasPrefix(line[hashes:], " ") {
			section = section[:off]
			break
		}
		off += len(line)
	}
	firstLine := strings.Count(markdown[:start+1], "\n") + 1
	var blocks []shellBlock
	lines := strings.Split(section, "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != "```" {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: unclosed code block", firstLine+i)
		}
		body := lines[i+1 : j]
		switch lang {
		case "sh":
			blocks = append(blocks, shellBlock{line: firstLine + i, script: strings.Join(body, "\n") + "\n"})
		case "text":
			if len(blocks) == 0 {
				return nil, fmt.Errorf("line %d: expected output before any shell block", firstLine+i)
			}
			for _, l := range body {
				if strings.TrimSpace(l) != "" {
					blocks[len(blocks)-1].expect = append(blocks[len(blocks)-1].expect, l)
				}
			}
		}
		i = j
	}
	return blocks, nil
}

// TestReadmeBlocksAreFoundWithTheirExpectedOutput checks the block reader
// on a small document: only the named section, sh blocks with the text
// block after each, other languages ignored.
// Diagram: none. client-go: none.
func TestReadmeBlocksAreFoundWithTheirExpectedOutput(t *testing.T) {
	doc := "# T\n\n## Other\n\n```sh\necho no\n```\n\n## Try it\n\nRun:\n\n```sh\necho a\necho b\n```\n\n```text\na\n\nb\n```\n\n" +
		"```go\nx := 1\n```\n\n```sh\necho c\n```\n\n## Next\n\n```sh\necho no\n```\n"

	blocks, err := readmeBlocks(doc, "## Try it")
	_, errMissing := readmeBlocks(doc, "## Nope")
	_, errUnclosed := readmeBlocks("## Try it\n```sh\necho a\n", "## Try it")

	require.NoError(t, err)
	assert.Equal(t, []shellBlock{
		{line: 13, script: "echo a\necho b\n", expect: []string{"a", "b"}},
		{line: 28, script: "echo c\n"},
	}, blocks)
	assert.Error(t, errMissing)
	assert.Error(t, errUnclosed)
}

// TestReadmeKubectlSectionRunsAsWritten runs every shell block of the
// README's kubectl section with bash, as written, from the repository root
// (in the order a reader would, each in a fresh shell, with a fresh
// KUBECACHEDIR so that kubectl's discovery cache starts empty), and checks
// that the output holds every line the README says the reader will see.
// The section's fixed ports must be free; whatever a block leaves running
// is killed with its process group.
// Diagram: API (and steps 1-9 through the demo). client-go: none (kubectl).
func TestReadmeKubectlSectionRunsAsWritten(t *testing.T) {
	_, err := exec.LookPath("kubectl")
	require.NoError(t, err, "the README's commands call kubectl from PATH")
	for _, port := range readmePorts {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		require.NoError(t, err, "port %d, which the README's commands use, is busy", port)
		require.NoError(t, ln.Close())
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	blocks, err := readmeBlocks(string(readme), readmeSection)
	require.NoError(t, err)
	require.Len(t, blocks, 2, "the section's two shell blocks")

	for _, b := range blocks {
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			out, err := runReadmeBlock(t, root, b.script)

			require.NoError(t, err, "README.md:%d\n%s\noutput:\n%s", b.line, b.script, out)
			require.NotEmpty(t, b.expect, "README.md:%d says what the reader will see", b.line)
			for _, want := range b.expect {
				assert.Contains(t, out, want, "README.md:%d: output:\n%s", b.line, out)
			}
		})
	}
}

// runReadmeBlock runs script with bash -e in dir, in a process group of its
// own that is killed when the script ends or its deadline passes, and
// returns what it printed (stdout and stderr).
func runReadmeBlock(t *testing.T, dir, script string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), readmeDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+t.TempDir()) // kubectl's discovery cache, fresh
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything the block left behind
	}
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("the block did not finish within %v: %w", readmeDeadline, ctx.Err())
	}
	return out.String(), err
}
