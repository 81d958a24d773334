package exampleoutput

import (
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Show runs example, the Example function called name in the package under
// test, checks that it prints what its // Output: comment says, and logs
// each line it printed.
func Show(t testing.TB, name string, example func()) {
	t.Helper()
	want, unordered, err := expectedOutput(".", name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := capture(example)
	if err != nil {
		t.Fatal(err)
	}
	if !sameOutput(got, want, unordered) {
		t.Errorf("exampleoutput: %s printed\n%s\nbut its // Output: comment says\n%s", name, got, want)
		return
	}
	t.Logf("%s prints (and go test checks it against its // Output: comment):", name)
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		t.Log("  " + line)
	}
}

// expectedOutput returns the // Output: comment of the Example called name
// among the _test.go files of dir, and whether it is unordered.
func expectedOutput(dir, name string) (string, bool, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", false, fmt.Errorf("exampleoutput: %w", err)
	}
	fset := token.NewFileSet()
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return "", false, fmt.Errorf("exampleoutput: %w", err)
		}
		for _, ex := range doc.Examples(f) {
			if "Example"+ex.Name != name {
				continue
			}
			if ex.EmptyOutput || ex.Output == "" {
				return "", false, fmt.Errorf("exampleoutput: %s has no // Output: comment to show", name)
			}
			return ex.Output, ex.Unordered, nil
		}
	}
	return "", false, fmt.Errorf("exampleoutput: no Example called %s in %s", name, dir)
}

// capture runs f with os.Stdout sent to a pipe and returns what f printed.
func capture(f func()) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", fmt.Errorf("exampleoutput: %w", err)
	}
	printed := make(chan string)
	go func() {
		var b strings.Builder
		_, _ = io.Copy(&b, r)
		_ = r.Close()
		printed <- b.String()
	}()
	stdout := os.Stdout
	os.Stdout = w
	func() {
		defer func() {
			os.Stdout = stdout
			_ = w.Close()
		}()
		f()
	}()
	return <-printed, nil
}

// sameOutput compares printed output with an // Output: comment as go test
// does: surrounding space trimmed, and for unordered output, as sorted lines.
func sameOutput(got, want string, unordered bool) bool {
	got, want = strings.TrimSpace(got), strings.TrimSpace(want)
	if !unordered {
		return got == want
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	sort.Strings(g)
	sort.Strings(w)
	return strings.Join(g, "\n") == strings.Join(w, "\n")
}
