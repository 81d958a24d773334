package walkthrough

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

// TestDocsEndEachConfusionWithItsTest checks the shape of
// docs/confusions.md: fifteen numbered sections, each ending with the
// command that runs its own walkthrough test (and what it prints), each test a different one that
// exists here; and that every test the package doc names exists.
// Diagram: all steps. client-go: none (the docs).
func TestDocsEndEachConfusionWithItsTest(t *testing.T) {
	defined := testFunctions(t)
	text, err := os.ReadFile("../docs/confusions.md")
	require.NoError(t, err)
	sections := regexp.MustCompile(`(?m)^## (\d+)\. `).Split(string(text), -1)[1:]
	// The command may be followed by the block of output it prints
	// (internal/docscheck checks that block against the command's output).
	last := regexp.MustCompile("go test \\./walkthrough -run (TestConfusion[A-Za-z]+) -v\\s*(?:```output\\n[^`]*```\\s*)?$")

	require.Len(t, sections, 15)
	used := map[string]int{}
	for i, section := range sections {
		m := last.FindStringSubmatch(section)
		if !assert.NotNil(t, m, "section %d does not end with its go test ./walkthrough command", i+1) {
			continue
		}
		assert.True(t, defined[m[1]], "section %d names %s, which is not a test here", i+1, m[1])
		used[m[1]]++
	}
	for name, n := range used {
		assert.Equal(t, 1, n, "%s backs %d sections", name, n)
	}
	for name := range defined {
		if strings.HasPrefix(name, "TestConfusion") {
			assert.Equal(t, 1, used[name], "%s backs no section of docs/confusions.md", name)
		}
	}

	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	for _, name := range regexp.MustCompile(`\bTest(?:Confusion|Failure)[A-Z][A-Za-z]+`).FindAllString(string(doc), -1) {
		assert.True(t, defined[name], "doc.go names %s, which is not a test here", name)
	}
}

// testFunctions returns the names of the package's top-level test functions.
func testFunctions(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	defined := map[string]bool{}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				defined[fn.Name.Name] = true
			}
		}
	}
	return defined
}
