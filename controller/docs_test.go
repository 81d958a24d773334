package controller_test

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

// TestChapterCommandsRunExistingTests: every `go test ./controller -run X` command in
// docs/controller.md and in the package doc selects, with each of its |-separated
// alternatives, at least one Test or Example of this package, so the prose cannot
// drift from the code.
// Diagram: steps 7, 8, 9. client-go: none (keeps docs/controller.md honest).
func TestChapterCommandsRunExistingTests(t *testing.T) {
	chapter, err := os.ReadFile(filepath.Join("..", "docs", "controller.md"))
	require.NoError(t, err)
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	chapter = append(chapter, doc...)
	names := testFunctionNames(t)

	commands := regexp.MustCompile(`go test (?:-race )?\./controller -run (\S+)`).FindAllStringSubmatch(string(chapter), -1)

	require.NotEmpty(t, commands)
	for _, command := range commands {
		for _, alternative := range strings.Split(strings.Trim(command[1], "'"), "|") {
			selects := regexp.MustCompile(alternative)
			found := false
			for _, name := range names {
				found = found || selects.MatchString(name)
			}
			assert.True(t, found, "%q: %q selects no test", command[0], alternative)
		}
	}
}

// testFunctionNames returns the names of the Test and Example functions in this
// directory's test files.
func testFunctionNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
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
