package fakeapi

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Field validation: unknown fields, and the fieldValidation query parameter
// of create, update and patch. A real API server decodes a written object
// into its kind's Go type (or prunes it by its CRD's structural schema), so
// fields the kind does not have are dropped. What it says about them is up
// to fieldValidation (kubectl sends Strict on create -f and apply -f):
//
//	Warn (the default)  dropped; one Warning header per field: 299 - "unknown field \"spec.colour\""
//	Ignore              dropped silently
//	Strict              the request fails: 400 "Foo in version \"v1\" cannot be handled as a Foo:
//	                    strict decoding error: unknown field \"spec.colour\"" (a patch: 422, see readFields)
//
// fakeapi does the same, on the object a write would store (for a patch,
// the patched object), in-process and over HTTP, silent admin writes
// included (in-process there is no header to carry a warning), for the
// built-in kinds it models and for custom resources with a Go type. A
// schemaless resource keeps every field, like a CRD with
// x-kubernetes-preserve-unknown-fields; so does a field whose Go type is
// interface{} or runtime.RawExtension. A Go type given for a kind of
// Kubernetes' own groups may be a subset of the real one (see prunes): its
// unknown fields are kept, and found only when a request asks with Warn or
// Strict.

// fieldCheck is how a write reads its object: the fieldValidation
// directive, and the warnings the write earns (read by the HTTP handler).
type fieldCheck struct {
	directive string
	// patch marks the result of a patch, whose type errors the real server
	// reports as 422 Invalid, not 400.
	patch    bool
	warnings []string
}

// validateDirective refuses a fieldValidation value the server does not
// know, as the real server validates its options (kind: CreateOptions,
// UpdateOptions or PatchOptions).
func validateDirective(kind, directive string) error {
	if errs := metav1validation.ValidateFieldValidation(field.NewPath("fieldValidation"), directive); len(errs) > 0 {
		return errInvalidOptions(kind, errs)
	}
	return nil
}

// readFields checks u, an object about to be written to r, the way the real
// server's decoding does: first the field types of a built-in kind, then
// unknown fields, which are pruned from u and reported as fc.directive
// says. A body that fails is 400 BadRequest; the result of a patch that
// fails is 422 Invalid, with the patched object as the invalid value of a
// "patch" field, as on the real server.
func readFields(r *resource, u *unstructured.Unstructured, fc *fieldCheck) error {
	if fc == nil {
		fc = &fieldCheck{}
	}
	if r.decoder != nil {
		if err := decodeCheck(u, r.decoder); err != nil {
			if fc.patch {
				return errPatchUndecodable(u.Object, err)
			}
			return errUndecodable(r, err)
		}
	}
	if r.known == nil {
		return nil
	}
	prune := r.prunes()
	var patched map[string]any // the patch's result as it came, for a Strict refusal to quote
	if fc.patch && fc.directive == metav1.FieldValidationStrict {
		patched = runtime.DeepCopyJSON(u.Object)
	}
	unknown := pruneUnknown(r.known, u.Object, "", prune)
	normalizeBuiltin(r, u)
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	switch {
	case fc.directive == metav1.FieldValidationIgnore, fc.directive == "" && !prune:
		return nil
	case fc.directive == metav1.FieldValidationStrict:
		msgs := make([]string, len(unknown))
		for i, f := range unknown {
			msgs[i] = fmt.Sprintf("unknown field %q", f)
		}
		err := errors.New("strict decoding error: " + strings.Join(msgs, ", "))
		if fc.patch {
			return errPatchUndecodable(patched, err)
		}
		return errUndecodable(r, err)
	}
	for _, f := range unknown {
		fc.warnings = append(fc.warnings, fmt.Sprintf("unknown field %q", f))
	}
	return nil
}

// writeWarnings sets one Warning header per warning, in the form the real
// server uses (code 299, no agent).
func writeWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", `299 - `+strconv.Quote(msg))
	}
}

// prunes reports whether r's Go type is the whole of its kind's schema, so
// that a field it lacks is unknown to the real server too: fakeapi's own
// models of built-in kinds, the described real types (a Deployment's,
// builtin_types.go) and the type of a custom resource. Any other Go type
// registered for a kind of Kubernetes' own groups may be a subset of the
// real type: fields it lacks are kept, and reported only when a request
// asks with fieldValidation.
func (r *resource) prunes() bool {
	if _, described := builtinTypeFiles[r.gvk()]; described {
		return true // the real type's fields, whatever the model
	}
	if r.model == nil {
		return false
	}
	if _, own := builtinModelNames[r.model]; own {
		return true
	}
	return !r.decodesTyped()
}

// pruneUnknown returns the paths ("spec.colour", "items[1].nme") of the
// keys of doc that type t has no field for, and deletes them from doc when
// remove is true. Keys starting with "$" are strategic merge patch
// directives, not fields.
func pruneUnknown(t *goType, doc any, path string, remove bool) []string {
	if t.decoder != nil {
		return nil // a type that decodes itself has no fields to know
	}
	var out []string
	switch t.kind {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		fields := make(map[string]*goType, len(t.fields))
		for _, f := range t.fields {
			fields[f.name] = f.typ
		}
		for k, v := range m {
			if strings.HasPrefix(k, "$") {
				continue
			}
			ft, known := fields[k]
			if !known {
				out = append(out, join(path, k))
				if remove {
					delete(m, k)
				}
				continue
			}
			out = append(out, pruneUnknown(ft, v, join(path, k), remove)...)
		}
	case reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		for k, v := range m {
			out = append(out, pruneUnknown(t.elem, v, join(path, k), remove)...)
		}
	case reflect.Slice, reflect.Array:
		l, ok := doc.([]any)
		if !ok {
			return nil
		}
		for i, v := range l {
			out = append(out, pruneUnknown(t.elem, v, fmt.Sprintf("%s[%d]", path, i), remove)...)
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
