package indexer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/indexer"
)

// TestMetaNamespaceKeyFuncBuildsNamespaceSlashName shows the key every object
// is stored under: "namespace/name", or "name" for a cluster-scoped object,
// for typed and unstructured objects alike; an ExplicitKey passes through.
// Diagram: step 5. client-go: MetaNamespaceKeyFunc.
func TestMetaNamespaceKeyFuncBuildsNamespaceSlashName(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetNamespace("kube-system")
	u.SetName("coredns")
	tests := []struct {
		name string
		obj  any
		want string
	}{
		{"namespaced typed object", newObj("default", "web"), "default/web"},
		{"cluster-scoped typed object", newObj("", "node-1"), "node-1"},
		{"unstructured object", u, "kube-system/coredns"},
		{"explicit key", indexer.ExplicitKey("any/thing"), "any/thing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := indexer.MetaNamespaceKeyFunc(tt.obj)

			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			t.Logf("MetaNamespaceKeyFunc(%s) = %q", tt.name, got)
		})
	}
}

// TestMetaNamespaceKeyFuncRejectsObjectWithoutMetadata checks that something
// that is not an API object gets an error, not a panic or an empty key.
// Diagram: step 5. client-go: MetaNamespaceKeyFunc.
func TestMetaNamespaceKeyFuncRejectsObjectWithoutMetadata(t *testing.T) {
	for _, obj := range []any{"just a string", 42, nil, struct{}{}} {
		key, err := indexer.MetaNamespaceKeyFunc(obj)

		assert.Error(t, err, "%#v", obj)
		assert.Empty(t, key)
	}
}

// TestSplitMetaNamespaceKeyInvertsTheKeyFunc checks that a key splits back
// into the namespace and name it was built from, and that a key with more than
// one slash is rejected.
// Diagram: step 9. client-go: SplitMetaNamespaceKey.
func TestSplitMetaNamespaceKeyInvertsTheKeyFunc(t *testing.T) {
	tests := []struct {
		key, namespace, name string
	}{
		{"default/web", "default", "web"},
		{"node-1", "", "node-1"},
		{"", "", ""},
	}
	for _, tt := range tests {
		ns, name, err := indexer.SplitMetaNamespaceKey(tt.key)

		require.NoError(t, err, tt.key)
		t.Logf("SplitMetaNamespaceKey(%q) = namespace %q, name %q", tt.key, ns, name)
		assert.Equal(t, tt.namespace, ns, tt.key)
		assert.Equal(t, tt.name, name, tt.key)
	}

	_, _, err := indexer.SplitMetaNamespaceKey("a/b/c")
	t.Logf("SplitMetaNamespaceKey(%q): %v", "a/b/c", err)

	assert.ErrorContains(t, err, "indexer: unexpected key format")
}

// TestObjectNameRoundTripsThroughItsString checks ObjectName, the structured
// form of a key: ObjectToName, String, ParseObjectName and AsNamespacedName
// agree with MetaNamespaceKeyFunc.
// Diagram: step 5. client-go: ObjectName, ParseObjectName, ObjectToName.
func TestObjectNameRoundTripsThroughItsString(t *testing.T) {
	obj := newObj("default", "web")

	name, err := indexer.ObjectToName(obj)
	require.NoError(t, err)
	key, err := indexer.MetaNamespaceKeyFunc(obj)
	require.NoError(t, err)
	parsed, err := indexer.ParseObjectName(key)
	require.NoError(t, err)

	assert.Equal(t, indexer.NewObjectName("default", "web"), name)
	assert.Equal(t, key, name.String())
	assert.Equal(t, name, parsed)
	assert.Equal(t, types.NamespacedName{Namespace: "default", Name: "web"}, name.AsNamespacedName())
	assert.Equal(t, "node-1", indexer.NewObjectName("", "node-1").String())
	_, err = indexer.ObjectToName("not an object")
	assert.Error(t, err)
}

// TestKeyErrorWrapsTheKeyFuncFailure checks that a Store wraps a KeyFunc
// failure in a KeyError that names the object and unwraps to the cause.
// Diagram: step 4. client-go: KeyError.
func TestKeyErrorWrapsTheKeyFuncFailure(t *testing.T) {
	cause := errors.New("no key for you")
	store := indexer.NewStore(func(any) (string, error) { return "", cause })

	err := store.Add(newObj("default", "web"))

	var keyErr indexer.KeyError
	require.ErrorAs(t, err, &keyErr)
	t.Logf("Add with a KeyFunc that fails: %v", err)
	t.Logf("   a KeyError naming %s, which unwraps to the cause: %v", keyErr.Obj.(*metav1.PartialObjectMetadata).Name, errors.Is(err, cause))
	assert.ErrorIs(t, err, cause)
	assert.Equal(t, "web", keyErr.Obj.(*metav1.PartialObjectMetadata).Name)
	assert.Contains(t, err.Error(), "indexer: couldn't create key for object")
	assert.Empty(t, store.ListKeys())
	requireConsistent(t, store)
}

// FuzzObjectNameRoundTrip checks that ParseObjectName rejects exactly the keys
// with more than one slash and that String gives every other key back.
// Diagram: step 5. client-go: ParseObjectName.
func FuzzObjectNameRoundTrip(f *testing.F) {
	for _, seed := range []string{"default/web", "node-1", "", "/", "a/", "/b", "a/b/c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		name, err := indexer.ParseObjectName(key)

		if strings.Count(key, "/") > 1 {
			assert.Error(t, err)
			return
		}
		require.NoError(t, err)
		if strings.HasPrefix(key, "/") {
			// An empty namespace is written without its slash.
			assert.Equal(t, key[1:], name.String())
			return
		}
		assert.Equal(t, key, name.String())
	})
}
