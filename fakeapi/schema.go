package fakeapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Schema validation of custom resources. A real API server refuses a
// custom resource whose fields have the wrong JSON type (a string where its
// schema wants an integer) with 422 Invalid, before anything is stored:
//
//	spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
//
// Without that, one bad object would reach every informer of its kind,
// whose typed decoding would fail on it at every list: the cache would never
// sync. fakeapi has no OpenAPI schemas; the Go type of a resource's objects
// (ResourceInfo.Object, or the type Options.Scheme registers for its kind)
// is its schema. Every write of such a kind (create, update, patch,
// /status, in-process and over HTTP) is checked against it: each field's
// JSON type against the Go type of the field its json tag names. Nulls are
// let through, as a decoder would let them through; metadata is checked by
// validateMeta; unknown fields are pruned first (field_validation.go).
// Kinds in Kubernetes' own groups are decoded instead (builtin_decode.go).

// checkSchema validates u against the Go type of r's objects, for a
// custom resource (a kind outside Kubernetes' own groups; a built-in kind's
// types are checked as it is decoded, by readFields).
func (s *Server) checkSchema(r *resource, u *unstructured.Unstructured) error {
	if r.model == nil || r.decodesTyped() {
		return nil
	}
	t := r.model
	var errs field.ErrorList
	top := map[string]any{}
	for k, v := range u.Object {
		switch k {
		case "apiVersion", "kind", "metadata": // checked elsewhere
		default:
			top[k] = v
		}
	}
	checkValue(nil, top, t, &errs)
	if len(errs) > 0 {
		return errInvalid(r, u.GetName(), errs)
	}
	return nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// checkValue checks the JSON value v (as decoded into the canonical form)
// against Go type t, appending one error per mismatch to errs.
func checkValue(path *field.Path, v any, t reflect.Type, errs *field.ErrorList) {
	if v == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		// The type decodes itself (a timestamp, a quantity, int-or-string):
		// ask it.
		data, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(data, reflect.New(t).Interface())
		}
		if err != nil {
			*errs = append(*errs, field.Invalid(path, jsonType(v), fmt.Sprintf("%s in body is not valid: %v", pathText(path), err)))
		}
		return
	}
	want := schemaType(t)
	switch t.Kind() {
	case reflect.Interface:
		return // anything goes
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		for _, f := range jsonFields(t) {
			if fv, present := m[f.name]; present {
				checkValue(path.Child(f.name), fv, f.field.Type, errs)
			}
		}
		return
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			checkValue(path.Key(k), m[k], t.Elem(), errs)
		}
		return
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			if _, ok := v.(string); ok { // []byte is base64 text
				return
			}
			break
		}
		items, ok := v.([]any)
		if !ok {
			break
		}
		for i, item := range items {
			checkValue(path.Index(i), item, t.Elem(), errs)
		}
		return
	case reflect.String:
		if _, ok := v.(string); ok {
			return
		}
	case reflect.Bool:
		if _, ok := v.(bool); ok {
			return
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
			return
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(int64)
		if !ok {
			break
		}
		if !fits(n, t) {
			// The apiserver's format check: "must be of type int32".
			*errs = append(*errs, field.Invalid(path, n, fmt.Sprintf("%s in body must be of type %s: %q", pathText(path), t.Kind(), fmt.Sprint(n))))
		}
		return
	}
	got := jsonType(v)
	*errs = append(*errs, field.Invalid(path, got, fmt.Sprintf("%s in body must be of type %s: %q", pathText(path), want, got)))
}

// schemaType names the JSON type a Go type asks for, as an OpenAPI schema
// would: integer, number, string, boolean, array or object.
func schemaType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	}
	return "object"
}

// jsonType names the JSON type of a canonical value, as the apiserver's
// messages do.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// fits reports whether n is in the range of integer type t.
func fits(n int64, t reflect.Type) bool { return fitsKind(n, t.Kind()) }

// fitsKind reports whether n is in the range of integers of kind k.
func fitsKind(n int64, k reflect.Kind) bool {
	switch k {
	case reflect.Int8:
		return n >= math.MinInt8 && n <= math.MaxInt8
	case reflect.Int16:
		return n >= math.MinInt16 && n <= math.MaxInt16
	case reflect.Int32:
		return n >= math.MinInt32 && n <= math.MaxInt32
	case reflect.Uint8:
		return n >= 0 && n <= math.MaxUint8
	case reflect.Uint16:
		return n >= 0 && n <= math.MaxUint16
	case reflect.Uint32:
		return n >= 0 && n <= math.MaxUint32
	case reflect.Uint, reflect.Uint64:
		return n >= 0
	}
	return true
}

// pathText is the path as the message names it ("<root>" for the whole
// body, which never happens for a map-shaped object).
func pathText(p *field.Path) string {
	if p == nil {
		return "<root>"
	}
	return p.String()
}
