package deltafifo_test

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

// TestDocsNameExistingTests keeps docs/deltafifo.md honest: every
// `go test ./deltafifo -run X` (or -bench X) command it shows must select at
// least one test, example, fuzz target or benchmark of this package.
// Diagram: steps 2 and 3. client-go: none (it keeps the chapter in step with the code)
func TestDocsNameExistingTests(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "deltafifo.md"))
	require.NoError(t, err)
	names := testFuncNames(t)

	commands := regexp.MustCompile(`go test [^\n]*\./deltafifo[^\n]*`).FindAllString(string(doc), -1)
	require.NotEmpty(t, commands)
	flag := regexp.MustCompile(`-(run|bench) ('[^']*'|\S+)`)
	checked := 0
	for _, cmd := range commands {
		for _, m := range flag.FindAllStringSubmatch(cmd, -1) {
			pattern := strings.Trim(m[2], "'")
			if pattern == "^$" || pattern == "." {
				continue
			}
			re, err := regexp.Compile(pattern)
			require.NoError(t, err, cmd)
			matched := false
			for _, name := range names {
				if re.MatchString(name) {
					matched = true
					break
				}
			}
			assert.True(t, matched, "docs/deltafifo.md runs %q, which matches nothing: %s", pattern, cmd)
			checked++
		}
	}
	assert.Greater(t, checked, 20, "expected the chapter to point at its tests")
}

func testFuncNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	var names []string
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				for _, prefix := range []string{"Test", "Example", "Fuzz", "Benchmark"} {
					if strings.HasPrefix(fn.Name.Name, prefix) {
						names = append(names, fn.Name.Name)
					}
				}
			}
		}
	}
	return names
}
