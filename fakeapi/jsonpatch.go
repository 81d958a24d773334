package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// RFC 6902 JSON Patch: a list of operations (add, remove, replace, move,
// copy, test) addressed by RFC 6901 JSON pointers.
//
// Two limits keep a small patch from making a large object, as on the real
// server:
//
//	more than 10,000 operations          413 RequestEntityTooLarge, "The allowed maximum operations in a JSON patch is 10000, got N"
//	copies adding up to more than 3 MiB  422 Invalid, "the server rejected our request due to an error in our request"
//
// Each copy of a value into itself doubles the object: 18 copies of /data
// into /data/x turn 1 KiB into 256 MiB. kube-apiserver counts the bytes each
// copy adds (the copied value's JSON) and stops the patch once the total
// passes its limit (--max-request-bytes' default, 3 MiB); its answer is
// the generic one of a JSON patch that fails to apply, which names no cause.
// Both limits apply once the object is found: a patch of a missing object
// is 404 first.

const (
	// maxJSONPatchOperations is the most operations one JSON patch may
	// have (kube-apiserver's maxJSONPatchOperations).
	maxJSONPatchOperations = 10_000
	// maxJSONPatchCopyBytes is the most bytes a JSON patch's copy
	// operations may add in all (kube-apiserver's JSONPatchMaxCopyBytes).
	maxJSONPatchCopyBytes = 3 << 20
)

type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
	// hasValue distinguishes "value": null from a missing value.
	hasValue bool
}

func parseJSONPatch(data []byte) ([]jsonPatchOp, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	ops := make([]jsonPatchOp, 0, len(raw))
	for i, r := range raw {
		var op jsonPatchOp
		for k, dst := range map[string]*string{"op": &op.Op, "path": &op.Path, "from": &op.From} {
			if v, ok := r[k]; ok {
				if err := json.Unmarshal(v, dst); err != nil {
					return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch operation %d: %q: %v", i, k, err))
				}
			}
		}
		if v, ok := r["value"]; ok {
			op.hasValue = true
			if err := utiljson.Unmarshal(v, &op.Value); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch operation %d: value: %v", i, err))
			}
		}
		switch op.Op {
		case "add", "replace", "test":
			if !op.hasValue {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("patch operation %d (%s) needs a value", i, op.Op))
			}
		case "remove", "move", "copy":
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("patch operation %d: unknown op %q", i, op.Op))
		}
		ops = append(ops, op)
	}
	return ops, nil
}

func pointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, errPatchInvalid(fmt.Sprintf("pointer %q must start with '/'", p))
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// applyJSONPatch applies ops to doc (which it modifies: pass a copy).
func applyJSONPatch(doc any, ops []jsonPatchOp) (any, error) {
	if len(ops) > maxJSONPatchOperations {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
	}
	var copied int64 // bytes added by copy operations so far
	for _, op := range ops {
		path, err := pointer(op.Path)
		if err != nil {
			return nil, err
		}
		switch op.Op {
		case "add":
			doc, err = add(doc, path, runtime.DeepCopyJSONValue(op.Value))
		case "remove":
			doc, _, err = remove(doc, path)
		case "replace":
			if len(path) == 0 {
				doc = runtime.DeepCopyJSONValue(op.Value)
				break
			}
			if _, err = get(doc, path); err == nil {
				if doc, _, err = remove(doc, path); err == nil {
					doc, err = add(doc, path, runtime.DeepCopyJSONValue(op.Value))
				}
			}
		case "test":
			var v any
			if v, err = get(doc, path); err == nil && !reflect.DeepEqual(v, op.Value) {
				err = errPatchInvalid(fmt.Sprintf("test failed at %q", op.Path))
			}
		case "move", "copy":
			var from []string
			if from, err = pointer(op.From); err != nil {
				return nil, err
			}
			var v any
			if op.Op == "move" {
				if strings.HasPrefix(op.Path+"/", op.From+"/") && op.Path != op.From {
					return nil, errPatchInvalid(fmt.Sprintf("cannot move %q into itself", op.From))
				}
				doc, v, err = remove(doc, from)
			} else if v, err = get(doc, from); err == nil {
				if copied += jsonSize(v); copied > maxJSONPatchCopyBytes {
					return nil, errCopyLimit(copied)
				}
				v = runtime.DeepCopyJSONValue(v)
			}
			if err == nil {
				doc, err = add(doc, path, v)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// jsonSize is the length of v's JSON, what a copy of it adds to the object.
func jsonSize(v any) int64 {
	data, err := json.Marshal(v)
	if err != nil {
		return 0 // a canonical JSON value always marshals
	}
	return int64(len(data))
}

// errCopyLimit is the real server's answer to a patch whose copies pass
// maxJSONPatchCopyBytes: the generic 422 of a JSON patch that does not
// apply, with no details (kube-apiserver: jsonPatcher.applyJSPatch).
func errCopyLimit(copied int64) error {
	return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "",
		fmt.Sprintf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", copied, maxJSONPatchCopyBytes),
		0, false)
}

func get(doc any, path []string) (any, error) {
	cur := doc
	for _, t := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, errPatchInvalid(fmt.Sprintf("path %q not found", "/"+strings.Join(path, "/")))
			}
			cur = v
		case []any:
			i, err := index(t, len(c)-1)
			if err != nil {
				return nil, err
			}
			cur = c[i]
		default:
			return nil, errPatchInvalid(fmt.Sprintf("path %q not found", "/"+strings.Join(path, "/")))
		}
	}
	return cur, nil
}

func index(t string, maxIndex int) (int, error) {
	i, err := strconv.Atoi(t)
	if err != nil || i < 0 || i > maxIndex || (len(t) > 1 && t[0] == '0') {
		return 0, errPatchInvalid(fmt.Sprintf("array index %q out of range", t))
	}
	return i, nil
}

// atParent calls leaf on the container holding the last token of path and
// stores the container it returns back into its own parent (slices may grow
// or shrink).
func atParent(doc any, path []string, leaf func(container any, key string) (any, error)) (any, error) {
	if len(path) == 1 {
		return leaf(doc, path[0])
	}
	switch c := doc.(type) {
	case map[string]any:
		child, ok := c[path[0]]
		if !ok {
			return nil, errPatchInvalid(fmt.Sprintf("path element %q not found", path[0]))
		}
		nc, err := atParent(child, path[1:], leaf)
		if err != nil {
			return nil, err
		}
		c[path[0]] = nc
		return c, nil
	case []any:
		i, err := index(path[0], len(c)-1)
		if err != nil {
			return nil, err
		}
		nc, err := atParent(c[i], path[1:], leaf)
		if err != nil {
			return nil, err
		}
		c[i] = nc
		return c, nil
	}
	return nil, errPatchInvalid(fmt.Sprintf("path element %q is not in an object or array", path[0]))
}

func add(doc any, path []string, v any) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	return atParent(doc, path, func(container any, key string) (any, error) {
		switch c := container.(type) {
		case map[string]any:
			c[key] = v
			return c, nil
		case []any:
			if key == "-" {
				return append(c, v), nil
			}
			i, err := index(key, len(c))
			if err != nil {
				return nil, err
			}
			c = append(c, nil)
			copy(c[i+1:], c[i:])
			c[i] = v
			return c, nil
		}
		return nil, errPatchInvalid(fmt.Sprintf("cannot add %q to a scalar", key))
	})
}

func remove(doc any, path []string) (any, any, error) {
	if len(path) == 0 {
		return nil, nil, errPatchInvalid("cannot remove the whole document")
	}
	var removed any
	out, err := atParent(doc, path, func(container any, key string) (any, error) {
		switch c := container.(type) {
		case map[string]any:
			v, ok := c[key]
			if !ok {
				return nil, errPatchInvalid(fmt.Sprintf("cannot remove %q: not found", key))
			}
			removed = v
			delete(c, key)
			return c, nil
		case []any:
			i, err := index(key, len(c)-1)
			if err != nil {
				return nil, err
			}
			removed = c[i]
			return append(c[:i:i], c[i+1:]...), nil
		}
		return nil, errPatchInvalid(fmt.Sprintf("cannot remove %q from a scalar", key))
	})
	return out, removed, err
}
