package fakeapi

import (
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Field validation: the fieldValidation query parameter of create, update
// and patch, which the OpenAPI documents advertise. kubectl sends
// fieldValidation=Strict on create -f and apply -f, and then leaves
// validation to the server. For a resource with a Go type, fakeapi finds
// the fields of a written object (or of a merge or strategic merge patch)
// that the type does not have:
//
//	Strict  the request fails: 400 "strict decoding error: unknown field \"spec.colour\""
//	Warn    it succeeds, with one Warning header per unknown field (kubectl prints them)
//	Ignore  nothing is checked
//
// A request without the parameter is not checked (a real server warns by
// default). A schemaless resource accepts any field. Only unknown fields are
// found; values are not checked against their types.

// checkFields applies the fieldValidation directive to the JSON document
// doc, an object of r or a patch of one.
func checkFields(w http.ResponseWriter, r *resource, directive string, doc any) error {
	switch directive {
	case "", metav1.FieldValidationIgnore:
		return nil
	case metav1.FieldValidationWarn, metav1.FieldValidationStrict:
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("fieldValidation must be one of %q, %q or %q, not %q",
			metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict, directive))
	}
	if r.model == nil {
		return nil
	}
	unknown := unknownFields(r.model, doc, "")
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	if directive == metav1.FieldValidationWarn {
		for _, f := range unknown {
			w.Header().Add("Warning", `299 - `+strconv.Quote(fmt.Sprintf("unknown field %q", f)))
		}
		return nil
	}
	msgs := make([]string, len(unknown))
	for i, f := range unknown {
		msgs[i] = fmt.Sprintf("unknown field %q", f)
	}
	return apierrors.NewBadRequest("strict decoding error: " + strings.Join(msgs, ", "))
}

// unknownFields returns the paths ("spec.colour", "items[1].nme") of the
// keys of doc that type t has no field for. Keys starting with "$" are
// strategic merge patch directives, not fields.
func unknownFields(t reflect.Type, doc any, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := wellKnown[t]; ok {
		return nil
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		fields := map[string]reflect.Type{}
		for _, f := range jsonFields(t) {
			fields[f.name] = f.field.Type
		}
		for k, v := range m {
			if strings.HasPrefix(k, "$") {
				continue
			}
			ft, known := fields[k]
			if !known {
				out = append(out, join(path, k))
				continue
			}
			out = append(out, unknownFields(ft, v, join(path, k))...)
		}
	case reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		for k, v := range m {
			if !strings.HasPrefix(k, "$") {
				out = append(out, unknownFields(t.Elem(), v, join(path, k))...)
			}
		}
	case reflect.Slice, reflect.Array:
		l, ok := doc.([]any)
		if !ok {
			return nil
		}
		for i, v := range l {
			out = append(out, unknownFields(t.Elem(), v, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkPatchFields applies the fieldValidation directive to a merge or
// strategic merge patch, whose shape is the object's. A JSON patch names
// paths, not fields, and is not checked; a patch that is not JSON is left
// for the patch to reject.
func checkPatchFields(w http.ResponseWriter, r *resource, directive string, pt types.PatchType, data []byte) error {
	if pt != types.MergePatchType && pt != types.StrategicMergePatchType {
		return checkFields(w, r, directive, nil)
	}
	var doc any
	if err := utiljson.Unmarshal(data, &doc); err != nil {
		return checkFields(w, r, directive, nil)
	}
	return checkFields(w, r, directive, doc)
}
