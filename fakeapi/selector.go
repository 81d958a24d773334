package fakeapi

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// selector is what a list or a watch asks for: a namespace ("" = all) and
// label and field selectors.
type selector struct {
	res    *resource
	ns     string
	labels labels.Selector
	fields fields.Selector
}

// extraFields are the field-selector fields a resource supports beyond
// metadata.name and metadata.namespace, as on the real server.
var extraFields = map[string][]string{
	"events": {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "source", "type"},
	"namespaces": {"status.phase"},
}

func newSelector(r *resource, ns string, opts metav1.ListOptions) (selector, error) {
	sel := selector{res: r, ns: ns, labels: labels.Everything(), fields: fields.Everything()}
	if !r.info.Namespaced {
		sel.ns = ""
	}
	if opts.LabelSelector != "" {
		ls, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return sel, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
		sel.labels = ls
	}
	if opts.FieldSelector != "" {
		fs, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return sel, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector: %v", err))
		}
		for _, req := range fs.Requirements() {
			if !supportsField(r, req.Field) {
				return sel, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
			}
		}
		sel.fields = fs
	}
	return sel, nil
}

func supportsField(r *resource, f string) bool {
	if f == "metadata.name" || (f == "metadata.namespace" && r.info.Namespaced) {
		return true
	}
	if r.info.GVR.Group != "" {
		return false
	}
	for _, x := range extraFields[r.info.GVR.Resource] {
		if x == f {
			return true
		}
	}
	return false
}

// filtering reports whether the selector narrows beyond the namespace, in
// which case the count of remaining items is unknown (as on the real server).
func (sel selector) filtering() bool { return !sel.labels.Empty() || !sel.fields.Empty() }

func (sel selector) matches(u *unstructured.Unstructured) bool {
	if u == nil {
		return false
	}
	if sel.ns != "" && u.GetNamespace() != sel.ns {
		return false
	}
	if !sel.labels.Matches(labels.Set(u.GetLabels())) {
		return false
	}
	if sel.fields.Empty() {
		return true
	}
	set := fields.Set{"metadata.name": u.GetName()}
	if sel.res.info.Namespaced {
		set["metadata.namespace"] = u.GetNamespace()
	}
	if sel.res.info.GVR.Group == "" {
		for _, f := range extraFields[sel.res.info.GVR.Resource] {
			v, _, _ := unstructured.NestedFieldNoCopy(u.Object, splitPath(f)...)
			if f == "source" {
				v, _, _ = unstructured.NestedFieldNoCopy(u.Object, "source", "component")
			}
			if s, ok := v.(string); ok {
				set[f] = s
			} else {
				set[f] = ""
			}
		}
	}
	return sel.fields.Matches(set)
}

func splitPath(f string) []string {
	var out []string
	start := 0
	for i := 0; i < len(f); i++ {
		if f[i] == '.' {
			out = append(out, f[start:i])
			start = i + 1
		}
	}
	return append(out, f[start:])
}
