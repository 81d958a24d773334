package indexer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
)

// newObj returns a small typed object with the given namespace, name and
// labels, written as "key=value" strings.
func newObj(namespace, name string, labels ...string) *metav1.PartialObjectMetadata {
	obj := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
	}
	if len(labels) > 0 {
		obj.Labels = map[string]string{}
		for _, kv := range labels {
			k, v, _ := strings.Cut(kv, "=")
			obj.Labels[k] = v
		}
	}
	return obj
}

// requireConsistent fails the test if the store breaks one of its invariants.
func requireConsistent(t testing.TB, store any) {
	t.Helper()
	require.NoError(t, indexer.CheckInvariants(store))
}

// keysOf returns the sorted MetaNamespaceKeyFunc keys of objs.
func keysOf(t testing.TB, objs []any) []string {
	t.Helper()
	keys := make([]string, 0, len(objs))
	for _, obj := range objs {
		key, err := indexer.MetaNamespaceKeyFunc(obj)
		require.NoError(t, err)
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// labelsOf returns the labels of an object made by newObj.
func labelsOf(obj any) map[string]string {
	return obj.(*metav1.PartialObjectMetadata).Labels
}
