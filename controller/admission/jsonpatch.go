package admission

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// jsonPatchOp is one operation of an RFC 6902 JSON patch. Value is absent for
// remove, and present (even as null) for add.
type jsonPatchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// jsonPatchFor returns the JSON patch that makes sent (the object as the
// client sent it) carry every change from before to after (the same object
// decoded and encoded by its Go type, before and after defaulting), or nil
// when there is none.
//
// The changes are found between before and after, so a field the Go type
// drops or re-encodes is no change; each is then written against sent: "add"
// (which, on an object member, also replaces) at the changed path when its
// parent exists in sent, else at the first ancestor sent lacks, with after's
// value there; "remove" only of what sent has. Arrays are replaced whole.
func jsonPatchFor(sent, before, after []byte) ([]byte, error) {
	var s, b, a any
	for _, doc := range []struct {
		data []byte
		into *any
	}{{sent, &s}, {before, &b}, {after, &a}} {
		dec := json.NewDecoder(bytes.NewReader(doc.data))
		dec.UseNumber() // int64s stay exact
		if err := dec.Decode(doc.into); err != nil {
			return nil, err
		}
	}
	var ops []jsonPatchOp
	var err error
	diff(b, a, nil, func(op string, path []string) {
		if err != nil {
			return
		}
		switch op {
		case "remove":
			if _, ok := lookup(s, path); ok {
				ops = append(ops, jsonPatchOp{Op: "remove", Path: pointerOf(path)})
			}
		default:
			at := path
			for i := range path[:len(path)-1] {
				// Each ancestor must be an object in sent for its child to be added.
				if v, ok := lookup(s, path[:i+1]); !ok || !isObject(v) {
					at = path[:i+1]
					break
				}
			}
			v, _ := lookup(a, at)
			var raw []byte
			raw, err = json.Marshal(v)
			ops = append(ops, jsonPatchOp{Op: "add", Path: pointerOf(at), Value: raw})
		}
	})
	if err != nil || len(ops) == 0 {
		return nil, err
	}
	return json.Marshal(dedupe(ops))
}

// diff calls emit for each change from b to a: "add" for a member a has and
// b lacks or holds differently, "remove" for one only b has. Objects are
// compared member by member, in sorted order; anything else is one value.
func diff(b, a any, path []string, emit func(op string, path []string)) {
	bm, bok := b.(map[string]any)
	am, aok := a.(map[string]any)
	if !bok || !aok {
		if !reflect.DeepEqual(a, b) && len(path) > 0 {
			emit("add", path)
		}
		return
	}
	for _, k := range sortedKeys(am) {
		child := append(slices.Clip(path), k)
		if bv, ok := bm[k]; ok {
			diff(bv, am[k], child, emit)
		} else {
			emit("add", child)
		}
	}
	for _, k := range sortedKeys(bm) {
		if _, ok := am[k]; !ok {
			emit("remove", append(slices.Clip(path), k))
		}
	}
}

// dedupe drops operations under a path an earlier "add" already wrote whole.
func dedupe(ops []jsonPatchOp) []jsonPatchOp {
	var out []jsonPatchOp
	var written []string
	for _, op := range ops {
		covered := slices.ContainsFunc(written, func(w string) bool {
			return op.Path == w || strings.HasPrefix(op.Path, w+"/")
		})
		if covered {
			continue
		}
		out = append(out, op)
		if op.Op == "add" {
			written = append(written, op.Path)
		}
	}
	return out
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// lookup follows path through nested objects.
func lookup(doc any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if doc, ok = m[k]; !ok {
			return nil, false
		}
	}
	return doc, true
}

// pointerOf writes path as an RFC 6901 JSON pointer.
func pointerOf(path []string) string {
	var b strings.Builder
	for _, k := range path {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
