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

// index is one named index: for each indexed value, the keys of the objects
// filed under it. A value with no keys is deleted, never kept as an empty set.
type index map[string]sets.Set[string]

// file records key under each of values.
func (idx index) file(key string, values []string) {
	for _, v := range values {
		set, ok := idx[v]
		if !ok {
			set = sets.New[string]()
			idx[v] = set
		}
		set.Insert(key)
	}
}

// unfile removes key from each of values, deleting sets that become empty
// (client-go's fix for a slow memory leak).
func (idx index) unfile(key string, values []string) {
	for _, v := range values {
		set := idx[v]
		set.Delete(key)
		if set.Len() == 0 {
			delete(idx, v)
		}
	}
}

// indexedValues is what one IndexFunc returned for one stored object.
type indexedValues struct {
	index  string   // the index name
	values []string // the values, without duplicates
}

// computeValues runs every IndexFunc of indexers on obj. It changes nothing, so
// a caller that gets an error can reject the write before touching the store.
func computeValues(indexers Indexers, obj any) ([]indexedValues, error) {
	if len(indexers) == 0 {
		return nil, nil
	}
	out := make([]indexedValues, 0, len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			return nil, fmt.Errorf("indexer: index %q has a nil IndexFunc", name)
		}
		values, err := fn(obj)
		if err != nil {
			return nil, fmt.Errorf("indexer: index %q: %w", name, err)
		}
		out = append(out, indexedValues{index: name, values: withoutDuplicates(values)})
	}
	return out, nil
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

// lookup returns the values recorded for the named index.
func lookup(all []indexedValues, name string) []string {
	for _, iv := range all {
		if iv.index == name {
			return iv.values
		}
	}
	return nil
}
