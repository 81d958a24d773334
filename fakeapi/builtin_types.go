package fakeapi

import (
	"embed"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Go types as the decoder sees them. A real server decodes a built-in kind
// into its Go type from k8s.io/api, which this module does not import. For
// the kinds fakeapi models itself (ConfigMap, Lease, ...) the model is that
// type; for a kind whose real type is too large to model by hand, and that a
// registered Go type may cover only in part (the sample controller's
// Deployment has four of its hundreds of fields), fakeapi reads a
// description of the real type instead: builtintypes/<group>.<version>.<Kind>.txt,
// one Go type a line, written from k8s.io/api by
// e2e/controlplane/builtintypestest, which also checks it stays true.
//
//	apps/v1.DeploymentSpec struct replicas=int32 selector=meta/v1.LabelSelector ...
//	core/v1.RestartPolicy string
//	core/v1.ResourceList map[core/v1.ResourceName]api/resource.Quantity
//	meta/v1.Time decoder
//
// Either way the decoder check (builtin_decode.go) walks a goType tree.

// goType is a Go type as encoding/json decodes into it.
type goType struct {
	// name is the type as the decoder's messages print it: int32,
	// v1.PodSpec, []v1.Container, map[string]string.
	name string
	kind reflect.Kind
	// decoder is set for a type that decodes itself (metav1.Time,
	// resource.Quantity, intstr.IntOrString): the decoder calls it, and so
	// does the check. text says it is an encoding.TextUnmarshaler.
	decoder reflect.Type
	text    bool
	// fields are a struct's JSON fields, embedded structs' in place.
	fields []goField
	// elem is a map's value type or a slice's element type.
	elem *goType
}

type goField struct {
	name string
	typ  *goType
}

// builtinTypeFiles are the kinds described by a file rather than modelled.
var builtinTypeFiles = map[schema.GroupVersionKind]string{
	{Group: "apps", Version: "v1", Kind: "Deployment"}: "builtintypes/apps.v1.Deployment.txt",
}

//go:embed builtintypes/*.txt
var builtinTypeFS embed.FS

// selfDecoders are the types a description may name as "decoder": the
// apimachinery types with their own UnmarshalJSON.
var selfDecoders = map[string]reflect.Type{
	"meta/v1.Time":            reflect.TypeFor[metav1.Time](),
	"meta/v1.MicroTime":       reflect.TypeFor[metav1.MicroTime](),
	"meta/v1.Duration":        reflect.TypeFor[metav1.Duration](),
	"meta/v1.FieldsV1":        reflect.TypeFor[metav1.FieldsV1](),
	"api/resource.Quantity":   reflect.TypeFor[apiresource.Quantity](),
	"util/intstr.IntOrString": reflect.TypeFor[intstr.IntOrString](),
}

// decoderOf returns the type a real server decodes r's objects into: the
// described type, or r's model, for a kind of Kubernetes' own groups; nil
// for a custom resource (its schema checks it instead) or a schemaless
// resource.
func decoderOf(info ResourceInfo, model reflect.Type) (*goType, error) {
	if !builtinGroups[info.GVR.Group] {
		return nil, nil
	}
	if file, ok := builtinTypeFiles[info.GVR.GroupVersion().WithKind(info.Kind)]; ok {
		return loadGoType(file)
	}
	if model == nil {
		return nil, nil
	}
	return goTypeOf(model, map[reflect.Type]*goType{}), nil
}

// goTypeOf describes Go type t; seen holds the types described so far (a
// type may refer to itself).
func goTypeOf(t reflect.Type, seen map[reflect.Type]*goType) *goType {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if g, ok := seen[t]; ok {
		return g
	}
	g := &goType{name: goTypeName(t), kind: t.Kind()}
	seen[t] = g
	switch {
	case reflect.PointerTo(t).Implements(jsonUnmarshaler):
		g.decoder = t
	case reflect.PointerTo(t).Implements(textUnmarshaler):
		g.decoder, g.text = t, true
	case t.Kind() == reflect.Struct:
		for _, f := range jsonFields(t) {
			g.fields = append(g.fields, goField{name: f.name, typ: goTypeOf(f.field.Type, seen)})
		}
	case t.Kind() == reflect.Map, t.Kind() == reflect.Slice, t.Kind() == reflect.Array:
		g.elem = goTypeOf(t.Elem(), seen)
	}
	return g
}

// basicKinds are the unnamed types a description may use.
var basicKinds = map[string]reflect.Kind{
	"string": reflect.String, "bool": reflect.Bool, "any": reflect.Interface,
	"int": reflect.Int, "int8": reflect.Int8, "int16": reflect.Int16, "int32": reflect.Int32, "int64": reflect.Int64,
	"uint": reflect.Uint, "uint8": reflect.Uint8, "uint16": reflect.Uint16, "uint32": reflect.Uint32, "uint64": reflect.Uint64,
	"float32": reflect.Float32, "float64": reflect.Float64,
}

// pkgPrefix is the first of the two package path elements a description
// names a type by (core/ in core/v1.PodSpec); the decoder prints only the
// package name (v1.PodSpec).
var pkgPrefix = regexp.MustCompile(`[a-z0-9]+/`)

// loadGoType reads a description file; its first type line is the root.
func loadGoType(file string) (*goType, error) {
	data, err := builtinTypeFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("fakeapi: %s: %w", file, err)
	}
	named := map[string]*goType{}
	var lines [][]string
	var root string
	for line := range strings.Lines(string(data)) {
		words := strings.Fields(line)
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			if root == "" && len(words) > 1 && words[0] == "#" {
				root = words[1] // the header names the root type
			}
			continue
		}
		if len(words) < 2 {
			return nil, fmt.Errorf("fakeapi: %s: %q: a name and a type are required", file, line)
		}
		named[words[0]] = &goType{name: pkgPrefix.ReplaceAllString(words[0], "")}
		lines = append(lines, words)
	}
	d := description{file: file, named: named}
	for _, words := range lines {
		if err := d.define(named[words[0]], words[0], words[1:]); err != nil {
			return nil, err
		}
	}
	if named[root] == nil {
		return nil, fmt.Errorf("fakeapi: %s: the header names no described type", file)
	}
	return named[root], nil
}

// description resolves the type expressions of one file.
type description struct {
	file  string
	named map[string]*goType
}

// define fills in g, the type called name, from the rest of its line.
func (d description) define(g *goType, name string, def []string) error {
	switch def[0] {
	case "decoder":
		t, ok := selfDecoders[name]
		if !ok {
			return fmt.Errorf("fakeapi: %s: %s: no such decoder", d.file, name)
		}
		g.kind, g.decoder = t.Kind(), t
	case "struct":
		g.kind = reflect.Struct
		for _, f := range def[1:] {
			fieldName, expr, ok := strings.Cut(f, "=")
			if !ok {
				return fmt.Errorf("fakeapi: %s: %s: field %q has no type", d.file, name, f)
			}
			ft, err := d.expr(expr)
			if err != nil {
				return err
			}
			g.fields = append(g.fields, goField{name: fieldName, typ: ft})
		}
	default:
		under, err := d.expr(def[0])
		if err != nil {
			return err
		}
		g.kind, g.elem = under.kind, under.elem
	}
	return nil
}

// expr resolves a type expression: a basic type, []T, map[K]V or a name.
func (d description) expr(e string) (*goType, error) {
	switch {
	case strings.HasPrefix(e, "[]"):
		elem, err := d.expr(e[2:])
		if err != nil {
			return nil, err
		}
		return &goType{name: "[]" + elem.name, kind: reflect.Slice, elem: elem}, nil
	case strings.HasPrefix(e, "map["):
		key, value, ok := strings.Cut(e[len("map["):], "]")
		if !ok {
			return nil, fmt.Errorf("fakeapi: %s: %q: a map needs ]", d.file, e)
		}
		k, err := d.expr(key)
		if err != nil {
			return nil, err
		}
		v, err := d.expr(value)
		if err != nil {
			return nil, err
		}
		return &goType{name: "map[" + k.name + "]" + v.name, kind: reflect.Map, elem: v}, nil
	}
	if k, ok := basicKinds[e]; ok {
		return &goType{name: e, kind: k}, nil
	}
	if g, ok := d.named[e]; ok {
		return g, nil
	}
	return nil, fmt.Errorf("fakeapi: %s: unknown type %q", d.file, e)
}
