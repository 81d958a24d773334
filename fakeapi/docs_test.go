package fakeapi_test

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

// TestDocsPointAtTestsThatExist keeps docs/fakeapi.md and doc.go honest:
// every `go test ./fakeapi -run X` or `-fuzz X` command and every test named
// in the docs' tables must be a function in this package.
// Diagram: API. client-go: none (the docs' commands).
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
	command := regexp.MustCompile(`go test [^\n]*?\./fakeapi [^\n]*?-(?:run|fuzz) ('[^']+'|\S+)`)
	named := regexp.MustCompile("`((?:Test|Fuzz|Example)[A-Za-z_]*)`")

	for _, doc := range []string{"../docs/fakeapi.md", "doc.go"} {
		text, err := os.ReadFile(doc)
		require.NoError(t, err)
		var names []string
		for _, m := range command.FindAllStringSubmatch(string(text), -1) {
			names = append(names, strings.Split(strings.Trim(m[1], "'`"), "|")...)
		}
		for _, m := range named.FindAllStringSubmatch(string(text), -1) {
			names = append(names, m[1])
		}
		require.NotEmpty(t, names, doc)
		for _, name := range names {
			if name == "^$" || name == "Example" {
				continue
			}
			assert.True(t, defined[name], "%s names %q, which is not a function in ./fakeapi", doc, name)
		}
	}
}
