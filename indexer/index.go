package indexer

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
)

// IndexFunc computes the values an object is filed under in one index. An
// object may be filed under several values (a multi-valued index, such as "every
// node a pod may run on") or under none (it is then left out of that index).
//
// An IndexFunc must be deterministic and must not modify obj. If it returns an
// error, the write that needed it is rejected and the store is left unchanged;
// see [Indexer].
//
// client-go: tools/cache.IndexFunc.
type IndexFunc func(obj any) ([]string, error)

// Indexers maps an index name to the IndexFunc that computes that index.
//
// client-go: tools/cache.Indexers.
type Indexers map[string]IndexFunc

// NamespaceIndex is the conventional name of the index built by
// [MetaNamespaceIndexFunc]. [Lister] uses an index of this name, when it exists,
// to list one namespace without scanning the others.
//
// client-go: tools/cache.NamespaceIndex.
const NamespaceIndex = "namespace"

// ErrNoSuchIndex is wrapped by every error about an index name the store does
// not have. Test for it with errors.Is.
var ErrNoSuchIndex = errors.New("indexer: no such index")

// MetaNamespaceIndexFunc files an object under its namespace. Cluster-scoped
// objects are filed under the empty string.
//
// client-go: tools/cache.MetaNamespaceIndexFunc.
func MetaNamespaceIndexFunc(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("indexer: object has no meta: %w", err)
	}
	return []string{m.GetNamespace()}, nil
}

// LabelIndexFunc returns an IndexFunc that files an object under the value of
// its label labelKey. Objects without that label are left out of the index.
// For example, LabelIndexFunc("app") files a pod labelled app=web under "web",
// so ByIndex(name, "web") finds every pod of that app.
//
// client-go has no such helper; controllers write this function by hand.
func LabelIndexFunc(labelKey string) IndexFunc {
	return func(obj any) ([]string, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("indexer: object has no meta: %w", err)
		}
		value, ok := m.GetLabels()[labelKey]
		if !ok {
			return nil, nil
		}
		return []string{value}, nil
	}
}

// withoutDuplicates returns values with repeats removed, in first-seen order.
// It copies only when there is a repeat, and never modifies its argument: an
// IndexFunc may return a slice it still holds.
func withoutDuplicates(values []string) []string {
	for i := 1; i < len(values); i++ {
		for j := range i {
			if values[i] == values[j] {
				return dedupe(values)
			}
		}
	}
	return values
}

func dedupe(values []string) []string {
	seen := sets.New[string]()
	out := make([]string, 0, len(values))
	for _, v := range values {
		if !seen.Has(v) {
			seen.Insert(v)
			out = append(out, v)
		}
	}
	return out
}
