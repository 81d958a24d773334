package fakeapi

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Decoding a built-in kind. A real API server decodes the body of a write
// to a built-in kind (a ConfigMap, a Lease, a Deployment) into its Go type
// before anything else; a field of the wrong JSON type fails that decoding,
// and the request is refused with 400 BadRequest and the decoder's message:
//
//	ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot
//	unmarshal number into Go struct field ConfigMap.data of type string
//
// A custom resource has no Go type on the server: its OpenAPI schema
// validates it after decoding, and the same mistake is 422 Invalid
// (schema.go). fakeapi tells the two apart by API group: a kind in one of
// Kubernetes' own groups is decoded, any other is schema-validated.
//
// decodeCheck walks the canonical object against the kind's Go type the way
// encoding/json would decode it and reports the first mismatch in the
// decoder's words. The real decoder reports the first mismatch in the
// body's order; this walk goes in key order, so when a body has several
// mismatches the one named may differ. A patch whose result would not
// decode is 422 Invalid with a "patch" cause on the real server, and here.

// builtinGroups are the API groups whose kinds a real kube-apiserver
// compiles in ("" is the core group).
var builtinGroups = map[string]bool{
	"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true,
	"coordination.k8s.io": true, "events.k8s.io": true, "networking.k8s.io": true,
	"rbac.authorization.k8s.io": true, "storage.k8s.io": true, "scheduling.k8s.io": true,
	"discovery.k8s.io": true, "node.k8s.io": true, "admissionregistration.k8s.io": true,
	"apiextensions.k8s.io": true, "apiregistration.k8s.io": true, "certificates.k8s.io": true,
	"flowcontrol.apiserver.k8s.io": true, "resource.k8s.io": true, "authentication.k8s.io": true,
	"authorization.k8s.io": true, "internal.apiserver.k8s.io": true, "storagemigration.k8s.io": true,
}

// decodesTyped reports whether a real server decodes r's objects into a Go
// type (a built-in kind) rather than validating them against an OpenAPI
// schema (a custom resource).
func (r *resource) decodesTyped() bool { return builtinGroups[r.info.GVR.Group] }

// errUndecodable is the real server's answer to a create or update body
// that does not decode into the kind's Go type, or that has unknown fields
// under fieldValidation=Strict (for a custom resource too).
func errUndecodable(r *resource, err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		r.info.Kind, r.info.GVR.Version, r.info.Kind, err))
}

// errPatchUndecodable is the real server's answer to a patch whose result
// does not decode, or has unknown fields under Strict: 422 with the patched
// object as the invalid value.
func errPatchUndecodable(patched map[string]any, err error) error {
	data, _ := json.Marshal(patched)
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), string(data), err.Error())})
}

// decodeCheck reports the first field of u (outside apiVersion and kind,
// which checkTypeInfo handles) that would not decode into Go type t.
func decodeCheck(u *unstructured.Unstructured, t *goType) error {
	body := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		if k != "apiVersion" && k != "kind" {
			body[k] = v
		}
	}
	return decodeValue(body, t, decodeContext{})
}

// decodeContext is where the decoder is, as its errors name it: the
// innermost struct and the json names of the fields leading there (map keys
// and list indexes are not part of it).
type decodeContext struct {
	strct  *goType
	fields []string
}

func (c decodeContext) into(strct *goType, name string) decodeContext {
	return decodeContext{strct: strct, fields: append(slices.Clip(c.fields), name)}
}

// typeError formats the decoder's UnmarshalTypeError; typeName is the Go
// type as the decoder prints it.
func (c decodeContext) typeError(value, typeName string) error {
	if c.strct == nil {
		return fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", value, typeName)
	}
	return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s.%s of type %s",
		value, c.strct.name[strings.LastIndex(c.strct.name, ".")+1:], strings.Join(c.fields, "."), typeName)
}

func decodeValue(v any, t *goType, c decodeContext) error {
	if v == nil {
		return nil // null decodes into anything
	}
	if t.decoder != nil {
		if t.text {
			s, ok := v.(string)
			if !ok {
				return c.typeError(decodeValueName(v), t.name)
			}
			return reflect.New(t.decoder).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
		}
		// The type decodes itself (a timestamp, a quantity, int-or-string):
		// its own error is the decoder's.
		data, _ := json.Marshal(v)
		err := json.Unmarshal(data, reflect.New(t.decoder).Interface())
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return c.typeError(te.Value, goTypeName(te.Type))
		}
		return err
	}
	switch t.kind {
	case reflect.Interface:
		return nil
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return c.typeError(decodeValueName(v), t.name)
		}
		for _, f := range t.fields {
			if fv, present := m[f.name]; present {
				if err := decodeValue(fv, f.typ, c.into(t, f.name)); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return c.typeError(decodeValueName(v), t.name)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := decodeValue(m[k], t.elem, c); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if t.elem.kind == reflect.Uint8 {
			s, ok := v.(string)
			if !ok {
				return c.typeError(decodeValueName(v), t.name)
			}
			_, err := base64.StdEncoding.DecodeString(s)
			return err // the decoder's own words: illegal base64 data at input byte N
		}
		items, ok := v.([]any)
		if !ok {
			return c.typeError(decodeValueName(v), t.name)
		}
		for _, item := range items {
			if err := decodeValue(item, t.elem, c); err != nil {
				return err
			}
		}
		return nil
	case reflect.String:
		if _, ok := v.(string); ok {
			return nil
		}
	case reflect.Bool:
		if _, ok := v.(bool); ok {
			return nil
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch n := v.(type) {
		case int64:
			if fitsKind(n, t.kind) {
				return nil
			}
			return c.typeError("number "+strconv.FormatInt(n, 10), t.name)
		case float64:
			return c.typeError("number "+strconv.FormatFloat(n, 'f', -1, 64), t.name)
		}
	}
	return c.typeError(decodeValueName(v), t.name)
}

// decodeValueName names a JSON value the way encoding/json's errors do.
func decodeValueName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case int64, float64:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// goTypeName writes t as Go's reflect.Type.String would for the type it
// models: fakeapi's models of built-in kinds take the name of the real type
// (configMapModel is v1.ConfigMap).
func goTypeName(t reflect.Type) string {
	if name, ok := builtinModelNames[t]; ok {
		parts := strings.Split(name, ".")
		return strings.Join(parts[max(len(parts)-2, 0):], ".")
	}
	if t.Name() != "" {
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + goTypeName(t.Elem())
	case reflect.Slice:
		return "[]" + goTypeName(t.Elem())
	case reflect.Map:
		return "map[" + goTypeName(t.Key()) + "]" + goTypeName(t.Elem())
	}
	return t.String()
}
