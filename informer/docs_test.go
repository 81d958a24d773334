package informer_test

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

// TestChapterCommandsNameExistingTests reads docs/informer.md and checks
// that every `go test ./informer -run X` command in it selects at least one
// Test or Example of this package (for a subtest pattern, its top-level
// part), so the chapter cannot drift from the code.
//
// Diagram: steps 3-6. client-go: none (keeps docs/informer.md honest).
func TestChapterCommandsNameExistingTests(t *testing.T) {
	chapter, err := os.ReadFile(filepath.Join("..", "docs", "informer.md"))
	require.NoError(t, err)
	names := topLevelTests(t)

	commands := regexp.MustCompile(`go test (?:-race )?\./informer -run (\S+)`).FindAllStringSubmatch(string(chapter), -1)

	require.NotEmpty(t, commands)
	for _, c := range commands {
		pattern := strings.Trim(c[1], "'")
		if pattern == "^$" {
			continue // the benchmark command: no tests on purpose
		}
		top := regexp.MustCompile(strings.SplitN(pattern, "/", 2)[0])
		found := false
		for _, name := range names {
			found = found || top.MatchString(name)
		}
		assert.True(t, found, "%q selects no test", c[0])
	}
}

// topLevelTests returns the Test and Example functions of this directory.
func topLevelTests(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	var names []string
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Recv == nil && (strings.HasPrefix(fn.Name.Name, "Test") || strings.HasPrefix(fn.Name.Name, "Example")) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}
