package builtintypestest

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
)

var write = flag.Bool("write", false, "rewrite fakeapi/builtintypes from k8s.io/api")

// header opens every description file.
const header = `# %s as kube-apiserver decodes it, written by
# e2e/controlplane/builtintypestest from the Go types. One Go type a line:
# its name, then "struct" and its JSON fields (name=type, embedded structs'
# fields in place), or the type it is made of, or "decoder" for a type that
# decodes itself. Pointers are left out: they decode as what they point to.
`

// TestDescriptionsMatchK8sAPI: each description in fakeapi/builtintypes is
// what reflection over the k8s.io/api type says, so fakeapi refuses the
// fields kube-apiserver's decoder refuses, in its words.
// Diagram: API. kube-apiserver: decoding a body into the kind's Go type.
func TestDescriptionsMatchK8sAPI(t *testing.T) {
	for file, typ := range map[string]reflect.Type{
		"apps.v1.Deployment.txt": reflect.TypeFor[appsv1.Deployment](),
	} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("..", "..", "..", "fakeapi", "builtintypes", file)
			want := describe(typ)

			if *write {
				require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
			}
			got, err := os.ReadFile(path)

			require.NoError(t, err)
			assert.Empty(t, firstDifference(want, string(got)), "rewrite with: go test ./builtintypestest -args -write")
			t.Logf("%s: %d types", file, strings.Count(want, "\n")-strings.Count(header, "\n"))
		})
	}
}

// describe writes the description of t and every type reachable from it,
// sorted by name.
func describe(t reflect.Type) string {
	lines := map[string]string{}
	root := typeExpr(t, lines)
	names := make([]string, 0, len(lines))
	for name := range lines {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, header, root)
	for _, name := range names {
		b.WriteString(lines[name] + "\n")
	}
	return b.String()
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// typeName names a named type by the last two elements of its package path
// and its name: core/v1.PodSpec, meta/v1.Time, api/resource.Quantity.
func typeName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	return strings.Join(parts[max(len(parts)-2, 0):], "/") + "." + t.Name()
}

// typeExpr returns the expression for t (int32, []core/v1.Container,
// map[string]string, core/v1.PodSpec), adding a line for each named type
// it meets to lines.
func typeExpr(t reflect.Type, lines map[string]string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() == "" { // unnamed: a basic type or a composite one
		switch t.Kind() {
		case reflect.Slice:
			return "[]" + typeExpr(t.Elem(), lines)
		case reflect.Map:
			return "map[" + typeExpr(t.Key(), lines) + "]" + typeExpr(t.Elem(), lines)
		case reflect.Interface:
			return "any"
		case reflect.Struct:
			panic(fmt.Sprintf("an unnamed struct %v: not described", t))
		}
		return t.Kind().String()
	}
	name := typeName(t)
	if _, done := lines[name]; done {
		return name
	}
	lines[name] = "" // a placeholder, for recursive types
	switch {
	case reflect.PointerTo(t).Implements(jsonUnmarshaler):
		lines[name] = name + " decoder"
	case t.Kind() == reflect.Struct:
		line := name + " struct"
		for _, f := range fields(t) {
			line += " " + f.name + "=" + typeExpr(f.typ, lines)
		}
		lines[name] = line
	default:
		under := t.Kind().String()
		switch t.Kind() {
		case reflect.Slice:
			under = "[]" + typeExpr(t.Elem(), lines)
		case reflect.Map:
			under = "map[" + typeExpr(t.Key(), lines) + "]" + typeExpr(t.Elem(), lines)
		}
		lines[name] = name + " " + under
	}
	return name
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// fields lists t's JSON fields as encoding/json sees them: tagged names,
// embedded structs without a name flattened in place, "-" and unexported
// fields left out.
func fields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, fields(ft)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	return out
}

// firstDifference is the first line where want and got differ, both sides
// shown, or "" when they are equal.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nk8s.io/api: %s\nthe file:   %s", i+1, wl, gl)
		}
	}
	return ""
}
