package samplecontroller_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChapterShowsTheCRDManifestAndLinksResolve: the YAML block of the
// chapter is testdata/foo-crd.yaml, byte for byte, and every relative link
// in the chapter points at a file or directory that exists.
// Diagram: API. client-go: none.
func TestChapterShowsTheCRDManifestAndLinksResolve(t *testing.T) {
	chapter, err := os.ReadFile(filepath.Join("..", "docs", "samplecontroller.md"))
	require.NoError(t, err)
	crd, err := os.ReadFile(filepath.Join("testdata", "foo-crd.yaml"))
	require.NoError(t, err)

	assert.Contains(t, string(chapter), "```yaml\n"+string(crd)+"```\n")
	links := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`).FindAllStringSubmatch(string(chapter), -1)
	require.NotEmpty(t, links)
	for _, link := range links {
		if strings.Contains(link[1], "://") {
			continue
		}
		_, err := os.Stat(filepath.Join("..", "docs", link[1]))
		assert.NoError(t, err, "link %s", link[1])
	}
}
