package fakeapi

import (
	"encoding/base64"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validation of the built-in kinds beyond their field types: what the real
// server's core/v1 validation checks that a learner can run into.
//
//	ConfigMap  data and binaryData keys (alphanumerics, '-', '_', '.'), no key in both,
//	           at most 1 MiB of values in all: 422 "[]: Too long: must have at most 1048576 bytes"
//	Secret     data keys likewise, at most 1 MiB of decoded values in data: 422 "data: Too long: ..."
//
// etcd refuses a value over about 1.5 MiB, so the real limit keeps every
// ConfigMap and Secret storable; fakeapi refuses what the real server
// refuses. Other rules of these kinds (immutable, the Secret types' required
// keys) are not checked.

// MaxDataBytes is the most data a ConfigMap or a Secret may hold, as on the
// real server (core/v1 MaxSecretSize).
const MaxDataBytes = 1 << 20

// normalizeBuiltin does what the real server's conversion and defaulting
// do to a written Secret: stringData is merged into data (base64) and
// dropped, and type defaults to Opaque.
func normalizeBuiltin(r *resource, u *unstructured.Unstructured) {
	if r.info.GVR.Group != "" || r.info.Kind != "Secret" {
		return
	}
	if sd, ok := u.Object["stringData"].(map[string]any); ok && len(sd) > 0 {
		data, _ := u.Object["data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
		}
		for k, v := range sd {
			s, _ := v.(string)
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
		u.Object["data"] = data
	}
	delete(u.Object, "stringData")
	if t, _ := u.Object["type"].(string); t == "" {
		u.Object["type"] = "Opaque"
	}
}

// validateBuiltin runs the checks above for r's kind, on an object whose
// field types decodeCheck has already accepted.
func validateBuiltin(r *resource, u *unstructured.Unstructured) error {
	if err := validateDeployment(r, u); err != nil {
		return err
	}
	if r.info.GVR.Group != "" {
		return nil
	}
	var errs field.ErrorList
	switch r.info.Kind {
	case "ConfigMap":
		data, _ := u.Object["data"].(map[string]any)
		binary, _ := u.Object["binaryData"].(map[string]any)
		total := 0
		for _, k := range sortedKeys(data) {
			p := field.NewPath("data").Key(k)
			errs = append(errs, keyErrors(p, k)...)
			if _, dup := binary[k]; dup {
				errs = append(errs, field.Invalid(p, k, "duplicate of key present in binaryData"))
			}
			s, _ := data[k].(string)
			total += len(s)
		}
		for _, k := range sortedKeys(binary) {
			errs = append(errs, keyErrors(field.NewPath("binaryData").Key(k), k)...)
			total += decodedLen(binary[k])
		}
		if total > MaxDataBytes {
			// The path "" names the whole object, as on the real server.
			errs = append(errs, field.TooLong(field.NewPath(""), "", MaxDataBytes))
		}
	case "Secret":
		data, _ := u.Object["data"].(map[string]any)
		total := 0
		for _, k := range sortedKeys(data) {
			errs = append(errs, keyErrors(field.NewPath("data").Key(k), k)...)
			total += decodedLen(data[k])
		}
		if total > MaxDataBytes {
			errs = append(errs, field.TooLong(field.NewPath("data"), "", MaxDataBytes))
		}
	}
	if len(errs) > 0 {
		return errInvalid(r, u.GetName(), errs)
	}
	return nil
}

func keyErrors(p *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(p, key, msg))
	}
	return errs
}

// decodedLen is the number of bytes a base64 value holds (decodeCheck has
// checked that it decodes).
func decodedLen(v any) int {
	s, _ := v.(string)
	n, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0
	}
	return len(n)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
