package samplecontroller_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChapterCommandsRunExistingTests: every `go test ./pkg -run X` command
// in docs/samplecontroller.md and in the package doc selects, with each of
// its |-separated alternatives, at least one Test or Example of that
// package, so the prose cannot drift from the code.
// Diagram: steps 6-9. client-go: none (keeps docs/samplecontroller.md honest).
func TestChapterCommandsRunExistingTests(t *testing.T) {
	chapter, err := os.ReadFile(filepath.Join("..", "docs", "samplecontroller.md"))
	require.NoError(t, err)
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	text := string(chapter) + string(doc)

	commands := regexp.MustCompile(`go test (?:-race )?\./(\w+) -run (\S+)`).FindAllStringSubmatch(text, -1)

	require.GreaterOrEqual(t, len(commands), 15)
	names := map[string][]string{}
	for _, command := range commands {
		pkg := command[1]
		if names[pkg] == nil {
			names[pkg] = testFunctionNames(t, filepath.Join("..", pkg))
		}
		for _, alternative := range strings.Split(strings.Trim(command[2], "'"), "|") {
			selects := regexp.MustCompile(alternative)
			found := false
			for _, name := range names[pkg] {
				found = found || selects.MatchString(name)
			}
			assert.True(t, found, "%q: %q selects no test of ./%s", command[0], alternative, pkg)
		}
	}
}

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

// testFunctionNames returns the names of the Test and Example functions in
// dir's test files.
func testFunctionNames(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no tests in %s", dir)
	var names []string
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil &&
				(strings.HasPrefix(fn.Name.Name, "Test") || strings.HasPrefix(fn.Name.Name, "Example")) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}
