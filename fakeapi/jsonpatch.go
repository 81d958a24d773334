package fakeapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// RFC 6902 JSON Patch: a list of operations (add, remove, replace, move,
// copy, test) addressed by RFC 6901 JSON pointers.

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
