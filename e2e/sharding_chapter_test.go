package e2e

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardingChapterSection is the docs/sharding.md section whose shell block
// the test runs.
const shardingChapterSection = "#### Try it: three replicas, a SIGKILL and a SIGSTOP"

// TestReadmeBlocksEndAtTheNextHeadingOfTheirLevel: a "####" section ends
// at the next heading of its level or above, not at a deeper one, and a
// "#" inside a code block is no heading.
// Diagram: none. client-go: none.
func TestReadmeBlocksEndAtTheNextHeadingOfTheirLevel(t *testing.T) {
	doc := "## A\n\n#### Try\n\n```sh\n# a comment\necho a\n```\n\n##### Deeper\n\n```sh\necho b\n```\n\n### Next\n\n```sh\necho no\n```\n"

	blocks, err := readmeBlocks(doc, "#### Try")

	require.NoError(t, err)
	assert.Equal(t, []shellBlock{{line: 5, script: "# a comment\necho a\n"}, {line: 12, script: "echo b\n"}}, blocks)
}

// TestShardingChapterProcessBlockRunsAsWritten runs the shell block of
// docs/sharding.md's "Try it" section with bash, as written, from the
// repository root: it builds fakeapi and the sample controller, starts
// three replicas of a ring, kills one with SIGKILL and pauses another with
// SIGSTOP by their PIDs, and waits for the survivors each time. The output
// must hold every line the chapter says the reader will see, and the
// takeovers it prints are logged. The block's port must be free; whatever
// it leaves running is killed with its process group.
// Diagram: steps 1-9 per replica (the sharded ring). client-go: none (kubectl).
func TestShardingChapterProcessBlockRunsAsWritten(t *testing.T) {
	_, err := exec.LookPath("kubectl")
	require.NoError(t, err, "the chapter's commands call kubectl from PATH")
	ln, err := net.Listen("tcp", "127.0.0.1:18183")
	require.NoError(t, err, "port 18183, which the chapter's commands use, is busy")
	require.NoError(t, ln.Close())
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	chapter, err := os.ReadFile(filepath.Join(root, "docs", "sharding.md"))
	require.NoError(t, err)
	blocks, err := readmeBlocks(string(chapter), shardingChapterSection)
	require.NoError(t, err)
	require.Len(t, blocks, 1, "the section's one shell block")
	b := blocks[0]

	out, err := runReadmeBlock(t, root, b.script)

	require.NoError(t, err, "docs/sharding.md:%d\n%s\noutput:\n%s", b.line, b.script, out)
	require.NotEmpty(t, b.expect, "docs/sharding.md:%d says what the reader will see", b.line)
	for _, want := range b.expect {
		assert.Contains(t, out, want, "docs/sharding.md:%d: output:\n%s", b.line, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "taken over") || strings.HasPrefix(l, "/tmp/shard-") {
			t.Log(l)
		}
	}
}
