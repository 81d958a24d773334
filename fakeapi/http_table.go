package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Table output, what kubectl get asks for: column definitions plus one row
// of cells per object, each row carrying the object's metadata
// (includeObject=Metadata, the default), the whole object (Object) or
// nothing (None). In a watch only the first event carries the columns.

type column struct {
	def  metav1.TableColumnDefinition
	cell func(u *unstructured.Unstructured) any
}

var (
	nameColumn = column{
		def:  metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace."},
		cell: func(u *unstructured.Unstructured) any { return u.GetName() },
	}
	ageColumn = column{
		def:  metav1.TableColumnDefinition{Name: "Age", Type: "string", Description: "Time since creationTimestamp."},
		cell: func(u *unstructured.Unstructured) any { return age(u.GetCreationTimestamp().Time) },
	}
)

func stringCell(path ...string) func(u *unstructured.Unstructured) any {
	return func(u *unstructured.Unstructured) any {
		v, _, _ := unstructured.NestedString(u.Object, path...)
		return v
	}
}

func stringColumn(name string, path ...string) column {
	return column{def: metav1.TableColumnDefinition{Name: name, Type: "string"}, cell: stringCell(path...)}
}

// columnsFor returns the columns of the built-in resources, and Name/Age
// for the others (as for a CRD without printer columns).
func columnsFor(r *resource) []column {
	if r.info.GVR.Group == "coordination.k8s.io" && r.info.GVR.Resource == "leases" {
		return []column{nameColumn, stringColumn("Holder", "spec", "holderIdentity"), ageColumn}
	}
	if r.info.GVR.Group != "" {
		return []column{nameColumn, ageColumn}
	}
	switch r.info.GVR.Resource {
	case "configmaps":
		return []column{nameColumn, {
			def: metav1.TableColumnDefinition{Name: "Data", Type: "integer", Description: "Number of keys in data and binaryData."},
			cell: func(u *unstructured.Unstructured) any {
				d, _, _ := unstructured.NestedMap(u.Object, "data")
				b, _, _ := unstructured.NestedMap(u.Object, "binaryData")
				return int64(len(d) + len(b))
			},
		}, ageColumn}
	case "namespaces":
		return []column{nameColumn, stringColumn("Status", "status", "phase"), ageColumn}
	case "events":
		return []column{
			{def: metav1.TableColumnDefinition{Name: "Last Seen", Type: "string"}, cell: eventLastSeen},
			stringColumn("Type", "type"),
			stringColumn("Reason", "reason"),
			{def: metav1.TableColumnDefinition{Name: "Object", Type: "string"}, cell: func(u *unstructured.Unstructured) any {
				kind, _, _ := unstructured.NestedString(u.Object, "involvedObject", "kind")
				name, _, _ := unstructured.NestedString(u.Object, "involvedObject", "name")
				return strings.ToLower(kind) + "/" + name
			}},
			stringColumn("Message", "message"),
		}
	}
	return []column{nameColumn, ageColumn}
}

func eventLastSeen(u *unstructured.Unstructured) any {
	for _, f := range []string{"lastTimestamp", "eventTime"} {
		if s, ok, _ := unstructured.NestedString(u.Object, f); ok && s != "" {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				return age(t)
			}
		}
	}
	return age(u.GetCreationTimestamp().Time)
}

func age(t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t))
}

func includeObjectPolicy(q url.Values) (metav1.IncludeObjectPolicy, error) {
	switch p := metav1.IncludeObjectPolicy(q.Get("includeObject")); p {
	case "":
		return metav1.IncludeMetadata, nil
	case metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject:
		return p, nil
	default:
		return "", apierrors.NewBadRequest(fmt.Sprintf("includeObject must be None, Metadata or Object, not %q", p))
	}
}

// table renders objects as a meta.k8s.io/v1 Table.
func (s *Server) table(r *resource, items []*unstructured.Unstructured, rv, cont string, remaining *int64,
	include metav1.IncludeObjectPolicy, withColumns bool) *metav1.Table {
	cols := columnsFor(r)
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont, RemainingItemCount: remaining},
		Rows:     make([]metav1.TableRow, 0, len(items)),
	}
	if withColumns {
		for _, c := range cols {
			t.ColumnDefinitions = append(t.ColumnDefinitions, c.def)
		}
	}
	for _, u := range items {
		row := metav1.TableRow{}
		for _, c := range cols {
			row.Cells = append(row.Cells, c.cell(u))
		}
		switch include {
		case metav1.IncludeObject:
			row.Object = runtime.RawExtension{Raw: mustJSON(u.Object)}
		case metav1.IncludeMetadata:
			row.Object = runtime.RawExtension{Raw: mustJSON(map[string]any{
				"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": u.Object["metadata"]})}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// mustJSON encodes a canonical (JSON-decoded) value, which cannot fail.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakeapi: canonical value does not encode: %v", err))
	}
	return data
}
