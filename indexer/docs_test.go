package indexer_test

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

// TestDocsPointAtTestsThatExist keeps docs/indexer.md and doc.go honest: every
// `go test ./indexer -run X` or `-fuzz X` command they print must name test,
// example or fuzz functions that exist in this package.
// Diagram: steps 4, 5 and 9. client-go: none (the docs' commands).
func TestDocsPointAtTestsThatExist(t *testing.T) {
	defined := map[string]bool{}
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	for _, file := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range parsed.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				defined[fn.Name.Name] = true
			}
		}
	}
	command := regexp.MustCompile(`go test [^\n]*?\./indexer [^\n]*?-(?:run|fuzz) ('[^']+'|\S+)`)

	for _, doc := range []string{"../docs/indexer.md", "doc.go"} {
		text, err := os.ReadFile(doc)
		require.NoError(t, err)
		matches := command.FindAllStringSubmatch(string(text), -1)
		require.NotEmpty(t, matches, doc)
		for _, m := range matches {
			for _, name := range strings.Split(strings.Trim(m[1], "'`"), "|") {
				if name == "^$" || name == "Example" {
					continue
				}
				assert.True(t, defined[name], "%s names %q, which is not a function in ./indexer", doc, name)
			}
		}
	}
}
