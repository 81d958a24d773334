package docscheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modulePath is the import path of the module's root.
const modulePath = "github.com/informerlab/informerlab"

// layers ranks the library packages from the bottom of the diagram up. A
// package may import, in its non-test files, only project packages of a
// lower rank: arrows point down the pipeline, and down the controller box
// from the builder to the core. Packages left out (cmd, internal views,
// labs) sit on top and wire things; they are not checked.
var layers = map[string]int{
	"indexer":                      0,
	"workqueue":                    0,
	"internal/shardselector":       0,
	"internal/kubejson":            0,
	"controller/internal/ctrlutil": 0,
	"fakeapi":                      1,
	"client":                       1,
	"deltafifo":                    1,
	"reflector":                    1,
	"informer":                     2,
	"controller":                   3,
	"controller/predicate":         4,
	"controller/leaderelection":    4,
	"controller/recorder":          4,
	"controller/admission":         4,
	"controller/manager":           5,
	"controller/sharding":          5,
	"controller/builder":           6,
	"samplecontroller":             7,
}

// pipeline is what the API side (fakeapi, client) must never import: the
// server and its client know nothing of the machinery that watches them.
var pipeline = []string{"indexer", "workqueue", "deltafifo", "reflector", "informer", "controller"}

// layerViolations returns, for imports (package -> the project packages its
// non-test files import, both relative to the module root), every import
// that points up or sideways, or from the API side into the pipeline.
func layerViolations(imports map[string][]string) []string {
	var bad []string
	for pkg, deps := range imports {
		rank, ranked := layers[pkg]
		if !ranked {
			continue
		}
		for _, dep := range deps {
			depRank, depRanked := layers[dep]
			switch {
			case !depRanked:
				bad = append(bad, fmt.Sprintf("%s imports %s, which has no layer", pkg, dep))
			case depRank >= rank:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): an arrow up the diagram", pkg, rank, dep, depRank))
			case (pkg == "fakeapi" || pkg == "client") && slices.ContainsFunc(pipeline, func(p string) bool { return dep == p || strings.HasPrefix(dep, p+"/") }):
				bad = append(bad, fmt.Sprintf("%s imports %s: the API side imports no pipeline package", pkg, dep))
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// projectImports reads the non-test files of every package under root and
// returns the project packages each imports.
func projectImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "e2e" || d.Name() == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if dep, ok := strings.CutPrefix(p, modulePath+"/"); ok && !slices.Contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return imports
}

// TestLayersImportOnlyDownward: no library package imports a package above
// it (the controller core never imports the manager, sharding never
// imports the demo), and fakeapi and client import no pipeline package.
// Every library package has a layer.
// Diagram: all steps (the arrows). client-go: none (DESIGN's import rule).
func TestLayersImportOnlyDownward(t *testing.T) {
	root := repoRoot(t)
	imports := projectImports(t, root)

	violations := layerViolations(imports)

	assert.Empty(t, violations)
	for pkg := range layers {
		_, err := os.Stat(filepath.Join(root, pkg))
		assert.NoError(t, err, "layer table names %s, which does not exist", pkg)
	}
	for _, lib := range []string{"controller", "indexer", "workqueue", "deltafifo", "reflector", "informer", "fakeapi", "client"} {
		for pkg := range imports {
			if (pkg == lib || strings.HasPrefix(pkg, lib+"/")) && !strings.Contains(pkg, "internal/ctrltest") {
				_, ranked := layers[pkg]
				assert.True(t, ranked, "library package %s has no layer in the table", pkg)
			}
		}
	}
}

// TestLayerCheckCatchesUpwardImports: the checker itself, on small inputs.
// Diagram: none. client-go: none.
func TestLayerCheckCatchesUpwardImports(t *testing.T) {
	cases := []struct {
		imports map[string][]string
		want    []string
	}{
		{map[string][]string{"controller/builder": {"controller", "controller/manager"}}, nil},
		{map[string][]string{"controller": {"controller/manager"}}, []string{"controller (layer 3) imports controller/manager (layer 5): an arrow up the diagram"}},
		{map[string][]string{"controller/sharding": {"controller/manager"}}, []string{"controller/sharding (layer 5) imports controller/manager (layer 5): an arrow up the diagram"}},
		{map[string][]string{"controller/sharding": {"internal/demoengine"}}, []string{"controller/sharding imports internal/demoengine, which has no layer"}},
		{map[string][]string{"client": {"indexer"}}, []string{"client imports indexer: the API side imports no pipeline package"}},
		{map[string][]string{"cmd/demo": {"samplecontroller", "internal/demoengine"}}, nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, layerViolations(c.imports), "%v", c.imports)
	}
}
