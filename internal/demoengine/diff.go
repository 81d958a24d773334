package demoengine

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// diffObjects lists the fields that differ between two objects, one
// "path: old → new" line each (managedFields left out). It is for the
// verbose transcript: learners see what an update changed.
func diffObjects(oldObj, newObj any) string {
	om, ok1 := toMap(oldObj)
	nm, ok2 := toMap(newObj)
	if !ok1 || !ok2 {
		return ""
	}
	var lines []string
	diffValue("", om, nm, &lines)
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func toMap(obj any) (map[string]any, bool) {
	if o, ok := obj.(runtime.Unstructured); ok {
		return o.UnstructuredContent(), true
	}
	if o, ok := obj.(runtime.Object); ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		return m, err == nil
	}
	return nil, false
}

func diffValue(path string, a, b any, lines *[]string) {
	if path == ".metadata.managedFields" {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			diffValue(path+"."+k, am[k], bm[k], lines)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*lines = append(*lines, fmt.Sprintf("~ %s: %s → %s", strings.TrimPrefix(path, "."), show(a), show(b)))
	}
}

func show(v any) string {
	if v == nil {
		return "(none)"
	}
	return fmt.Sprintf("%v", v)
}
