package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot returns the directory of the module's go.mod, found by walking up
// from the working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the working directory")
		dir = parent
	}
}

// docFiles returns README.md, bench/README.md, every docs/*.md and every
// lab's README, relative to root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	// Each lab's README, and the benchmarks' (their links lead to the
	// chapters, the skeletons and the charts).
	labs, err := filepath.Glob(filepath.Join(root, "labs", "*", "README.md"))
	require.NoError(t, err)
	files = append(append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "bench", "README.md")}, files...), labs...)
	var rel []string
	for _, f := range files {
		r, err := filepath.Rel(root, f)
		require.NoError(t, err)
		rel = append(rel, r)
	}
	require.Greater(t, len(rel), 1, "no docs found under %s", root)
	return rel
}

// packageDocFiles returns every package's doc.go (relative to root): their
// "Read next" sections name go test commands too. The separate bench and e2e
// modules are included; their commands start with cd.
func packageDocFiles(t *testing.T, root string) []string {
	t.Helper()
	var rel []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "doc.go" {
			r, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = append(rel, r)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, rel, "no doc.go found under %s", root)
	return rel
}

// goPackage is what the checks need to know about one directory of Go code.
type goPackage struct {
	name string // the package clause of its non-test files ("" if none)
	dir  string

	exported map[string]bool            // exported top-level names
	members  map[string]map[string]bool // type -> exported methods and fields
	embeds   map[string][]string        // type -> same-package types it embeds
	tests    map[string]testFunc        // Test, Example, Benchmark and Fuzz functions of its _test.go files
}

// testFunc is a function go test can select.
type testFunc struct {
	name     string
	subtests []string // literal names passed to t.Run in its body, as go test rewrites them
}

// kind returns "Test", "Example", "Benchmark" or "Fuzz", or "" if go test
// would not treat name as one: the prefix must be followed by nothing or by
// a character that is not a lower-case letter.
func kind(name string) string {
	for _, prefix := range []string{"Test", "Example", "Benchmark", "Fuzz"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if rest == "" || !('a' <= rest[0] && rest[0] <= 'z') {
				return prefix
			}
		}
	}
	return ""
}

// parsePackage reads every .go file of dir (not its subdirectories).
func parsePackage(dir string) (*goPackage, error) {
	pkg := &goPackage{dir: dir, exported: map[string]bool{}, members: map[string]map[string]bool{},
		embeds: map[string][]string{}, tests: map[string]testFunc{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(file, "_test.go") {
			collectTests(pkg, f)
			continue
		}
		if pkg.name != "" && pkg.name != f.Name.Name {
			return nil, fmt.Errorf("%s: packages %s and %s in one directory", dir, pkg.name, f.Name.Name)
		}
		pkg.name = f.Name.Name
		collectDecls(pkg, f)
	}
	return pkg, nil
}

func (p *goPackage) member(typ, name string) {
	if p.members[typ] == nil {
		p.members[typ] = map[string]bool{}
	}
	p.members[typ][name] = true
}

// collectDecls records the exported names a non-test file declares.
func collectDecls(pkg *goPackage, f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				pkg.exported[d.Name.Name] = true
			} else if len(d.Recv.List) == 1 {
				pkg.member(typeName(d.Recv.List[0].Type), d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						pkg.exported[s.Name.Name] = true
						collectMembers(pkg, s)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							pkg.exported[n.Name] = true
						}
					}
				}
			}
		}
	}
}

// collectMembers records a struct's exported fields and an interface's
// methods, and what either embeds.
func collectMembers(pkg *goPackage, s *ast.TypeSpec) {
	var fields *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, field := range fields.List {
		if len(field.Names) == 0 {
			if name := typeName(field.Type); name != "" {
				pkg.embeds[s.Name.Name] = append(pkg.embeds[s.Name.Name], name)
				if ast.IsExported(name) {
					pkg.member(s.Name.Name, name) // an embedded field is named after its type
				}
			}
			continue
		}
		for _, n := range field.Names {
			if n.IsExported() {
				pkg.member(s.Name.Name, n.Name)
			}
		}
	}
}

// typeName returns the name of a same-package type expression (T, *T, T[K],
// *T[K]), or "" for anything else.
func typeName(expr ast.Expr) string {
	switch e := expr.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return ""
}

// collectTests records the functions go test can select in a _test.go file,
// with the literal names of the subtests each starts.
func collectTests(pkg *goPackage, f *ast.File) {
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || kind(fn.Name.Name) == "" {
			continue
		}
		tf := testFunc{name: fn.Name.Name}
		if fn.Body != nil {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 2 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Run" {
					return true
				}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if name, err := strconv.Unquote(lit.Value); err == nil {
						tf.subtests = append(tf.subtests, strings.ReplaceAll(name, " ", "_"))
					}
				}
				return true
			})
		}
		pkg.tests[fn.Name.Name] = tf
	}
}

// hasMember reports whether typ, or a same-package type it embeds, has the
// exported method or field name.
func (p *goPackage) hasMember(typ, name string) bool {
	seen := map[string]bool{}
	var has func(string) bool
	has = func(t string) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		if p.members[t][name] {
			return true
		}
		for _, e := range p.embeds[t] {
			if has(e) {
				return true
			}
		}
		return false
	}
	return has(typ)
}

// modulePackages parses every directory of the module under root: not
// hidden directories or testdata, and not directories with a go.mod of
// their own (separate modules, such as bench and e2e) unless nested is set.
// The result is keyed by the directory relative to root, with "/"
// separators ("." for root).
func modulePackages(root string, nested bool) (map[string]*goPackage, error) {
	pkgs := map[string]*goPackage{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root {
			base := d.Name()
			if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && !nested {
				return filepath.SkipDir
			}
		}
		pkg, err := parsePackage(path)
		if err != nil {
			return err
		}
		if pkg.name == "" && len(pkg.tests) == 0 {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pkgs[filepath.ToSlash(rel)] = pkg
		return nil
	})
	return pkgs, err
}

// libraryPackages returns the packages the mapping covers, by package name:
// every package of the module except commands (package main) and internal
// ones.
func libraryPackages(all map[string]*goPackage) (map[string]*goPackage, error) {
	byName := map[string]*goPackage{}
	var dirs []string
	for dir := range all {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		pkg := all[dir]
		if pkg.name == "" || pkg.name == "main" || dir == "internal" || strings.HasPrefix(dir, "internal/") || strings.Contains(dir, "/internal/") {
			continue
		}
		// The labs are course material, not library: their grader and
		// suites have no client-go counterpart, and their skeletons repeat
		// names the library's packages already map (docs/labs.md).
		if dir == "labs" || strings.HasPrefix(dir, "labs/") {
			continue
		}
		if other, ok := byName[pkg.name]; ok {
			return nil, fmt.Errorf("package name %s is used by %s and %s", pkg.name, other.dir, pkg.dir)
		}
		byName[pkg.name] = pkg
	}
	return byName, nil
}
