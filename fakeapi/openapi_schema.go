package fakeapi

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// OpenAPI schemas from Go types. A resource whose objects have a Go type
// (fakeapi's built-in kinds, a ResourceInfo.Object, a type in
// Options.Scheme) gets its OpenAPI v3 schema by reflection, the way
// kube-openapi generates the real server's from the same kind of structs:
// a struct is a component schema named after its package path and type
// ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), a field is a
// property named by its json tag, an embedded or ",inline" struct adds its
// fields to the outer one, and the patchStrategy and patchMergeKey tags
// become the x-kubernetes-patch-* extensions kubectl reads. A field's
// description comes from an optional `description:"..."` struct tag (Go
// doc comments are not available at run time).

// jsonSchema is an OpenAPI v3 schema object, ready to be encoded as JSON.
type jsonSchema = map[string]any

// wellKnown are the types kube-openapi also gives a fixed schema, because
// their JSON form is not what their Go structure suggests.
var wellKnown = map[reflect.Type]jsonSchema{
	reflect.TypeFor[metav1.Time]():          {"type": "string", "format": "date-time"},
	reflect.TypeFor[metav1.MicroTime]():     {"type": "string", "format": "date-time"},
	reflect.TypeFor[metav1.Duration]():      {"type": "string"},
	reflect.TypeFor[metav1.FieldsV1]():      {"type": "object"},
	reflect.TypeFor[runtime.RawExtension](): {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
	reflect.TypeFor[intstr.IntOrString]():   {"x-kubernetes-int-or-string": true},
	reflect.TypeFor[types.UID]():            {"type": "string"},
}

// metaDescriptions describe the fields of apimachinery's metadata types,
// which carry no description tags, for kubectl explain.
var metaDescriptions = map[reflect.Type]map[string]string{
	reflect.TypeFor[metav1.TypeMeta](): {
		"apiVersion": "APIVersion defines the versioned schema of this representation of an object.",
		"kind":       "Kind is a string value representing the REST resource this object represents.",
	},
	reflect.TypeFor[metav1.ObjectMeta](): {
		"name":              "Name must be unique within a namespace. Cannot be updated.",
		"generateName":      "A prefix the server uses to generate a unique name, if name is not given.",
		"namespace":         "The namespace the object lives in; empty for cluster-scoped objects.",
		"uid":               "UID is unique in time and space for this object; set by the server.",
		"resourceVersion":   "An opaque value that changes with every write: for optimistic concurrency, watches and lists.",
		"generation":        "A sequence number representing a specific generation of the desired state; set by the server.",
		"creationTimestamp": "When the object was created; set by the server.",
		"deletionTimestamp": "When the object will be deleted, once its finalizers are gone; set by the server.",
		"labels":            "Map of string keys and values that can be used to organize and select objects.",
		"annotations":       "Unstructured key value map stored with the object, not queryable.",
		"ownerReferences":   "The objects this object depends on; when all of them are gone, it is garbage collected.",
		"finalizers":        "Must be empty before the object is deleted from the registry.",
		"managedFields":     "Which field manager owns which fields (server-side apply).",
	},
	reflect.TypeFor[metav1.ListMeta](): {
		"resourceVersion":    "The resourceVersion of the list: watch from here to see every later change.",
		"continue":           "The token to get the next page of a paginated list.",
		"remainingItemCount": "How many items the pages after this one hold.",
	},
}

// schemaBuilder turns Go types into schemas, collecting the component
// schemas of the structs it meets.
type schemaBuilder struct {
	components map[string]jsonSchema
	names      map[reflect.Type]string // the component name of each struct seen
}

func newSchemaBuilder() *schemaBuilder {
	return &schemaBuilder{components: map[string]jsonSchema{}, names: map[reflect.Type]string{}}
}

// componentName is kube-openapi's name for a Go type: the package path with
// its domain reversed, then the type name. fakeapi's own models of built-in
// kinds have the name of the type they model (builtinModelNames).
func componentName(t reflect.Type) string {
	if name, ok := builtinModelNames[t]; ok {
		return name
	}
	parts := strings.Split(t.PkgPath(), "/")
	if len(parts) > 0 && strings.Contains(parts[0], ".") {
		domain := strings.Split(parts[0], ".")
		for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
			domain[i], domain[j] = domain[j], domain[i]
		}
		parts = append(domain, parts[1:]...)
	}
	parts = append(parts, t.Name())
	return strings.Join(parts, ".")
}

// component returns a reference to t's component schema, building it
// first if needed. t must be a named struct type.
func (b *schemaBuilder) component(t reflect.Type) jsonSchema {
	name, ok := b.names[t]
	if !ok {
		name = componentName(t)
		b.names[t] = name
		b.components[name] = jsonSchema{} // placeholder: breaks cycles
		b.components[name] = b.structSchema(t)
	}
	return jsonSchema{"$ref": "#/components/schemas/" + name}
}

// typeSchema is the schema of a value of type t.
func (b *schemaBuilder) typeSchema(t reflect.Type) jsonSchema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := wellKnown[t]; ok {
		return cloneSchema(s)
	}
	switch t.Kind() {
	case reflect.String:
		return jsonSchema{"type": "string"}
	case reflect.Bool:
		return jsonSchema{"type": "boolean"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return jsonSchema{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return jsonSchema{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return jsonSchema{"type": "number", "format": "double"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return jsonSchema{"type": "string", "format": "byte"}
		}
		return jsonSchema{"type": "array", "items": b.typeSchema(t.Elem())}
	case reflect.Map:
		return jsonSchema{"type": "object", "additionalProperties": b.typeSchema(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return b.structSchema(t)
		}
		return b.component(t)
	}
	// interface{} and anything else: any JSON value.
	return jsonSchema{"x-kubernetes-preserve-unknown-fields": true}
}

// structSchema lists t's JSON fields as properties.
func (b *schemaBuilder) structSchema(t reflect.Type) jsonSchema {
	props := jsonSchema{}
	var required []string
	for _, f := range jsonFields(t) {
		ps := b.typeSchema(f.field.Type)
		if ref, isRef := ps["$ref"]; isRef {
			// A $ref cannot carry a description: wrap it, as kube-openapi does.
			ps = jsonSchema{"allOf": []any{jsonSchema{"$ref": ref}}, "default": jsonSchema{}}
		}
		if d := f.field.Tag.Get("description"); d != "" {
			ps["description"] = d
		} else if d := metaDescriptions[f.owner][f.name]; d != "" {
			ps["description"] = d
		}
		if s := f.field.Tag.Get("patchStrategy"); s != "" {
			ps["x-kubernetes-patch-strategy"] = s
		}
		if k := f.field.Tag.Get("patchMergeKey"); k != "" {
			ps["x-kubernetes-patch-merge-key"] = k
		}
		props[f.name] = ps
		if !f.omitempty && f.field.Type.Kind() != reflect.Pointer {
			required = append(required, f.name)
		}
	}
	s := jsonSchema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// jsonField is one field as encoding/json sees it.
type jsonField struct {
	name      string
	omitempty bool
	field     reflect.StructField
	owner     reflect.Type // the struct that declares the field
}

// jsonFields returns t's fields the way encoding/json encodes them: by json
// tag name, exported only, with embedded structs (untagged, or tagged
// ",inline" as Kubernetes types do) flattened into the outer one.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && (f.Anonymous && name == "" || strings.Contains(opts, "inline")) {
			out = append(out, jsonFields(ft)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, omitempty: strings.Contains(opts, "omitempty"), field: f, owner: t})
	}
	return out
}

// cloneSchema copies the top level of s, so a caller may add keys.
func cloneSchema(s jsonSchema) jsonSchema {
	out := make(jsonSchema, len(s)+2)
	for k, v := range s {
		out[k] = v
	}
	return out
}
