package fakeapi

import (
	"fmt"

	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/sharding"

	"github.com/informerlab/informerlab/internal/shardselector"
)

// selector is what a list or a watch asks for: a namespace ("" = all),
// label and field selectors, and a shard selector (hash ranges of uid or
// namespace; shard_selector.go).
type selector struct {
	res    *resource
	ns     string
	labels labels.Selector
	fields fields.Selector
	shard  sharding.Selector
}

// extraFields are the field-selector fields a resource supports beyond
// metadata.name and metadata.namespace, as on the real server.
var extraFields = map[string][]string{
	"events": {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "source", "type"},
	"namespaces": {"status.phase"},
}

// newSelector reads a request's selectors. ignoreShard drops the shard
// selector unread, as a server without the ShardedListAndWatch gate does.
func newSelector(r *resource, ns string, opts metav1.ListOptions, ignoreShard bool) (selector, error) {
	sel := selector{res: r, ns: ns, labels: labels.Everything(), fields: fields.Everything(), shard: sharding.Everything()}
	if !r.info.Namespaced {
		sel.ns = ""
	}
	if opts.ShardSelector != "" && !ignoreShard {
		// The real server reads the shard selector while it decodes the
		// query, before anything else, and answers a bad one with a bare
		// 500: no reason, the parser's words after "invalid shard selector: ".
		sh, err := shardselector.Parse(opts.ShardSelector)
		if err != nil {
			return sel, errStatus(http.StatusInternalServerError, "", "invalid shard selector: "+err.Error())
		}
		sel.shard = sh
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
func (sel selector) filtering() bool {
	return !sel.labels.Empty() || !sel.fields.Empty() || !sel.shard.Empty()
}

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
	if in, err := sel.shard.Matches(u); err != nil || !in {
		return false // err: a key the parser does not accept, which cannot happen
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
