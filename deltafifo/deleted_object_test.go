package deltafifo_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// TestDeletionHandlingObjectToNameReadsTombstoneKeys names an object and a
// tombstone alike, and reports a tombstone key that is not a name.
//
// Diagram: step 6 (OnDelete). client-go: DeletionHandlingObjectToName.
func TestDeletionHandlingObjectToNameReadsTombstoneKeys(t *testing.T) {
	fromObject, objErr := deltafifo.DeletionHandlingObjectToName(obj("a", "1"))
	fromTombstone, tombErr := deltafifo.DeletionHandlingObjectToName(deltafifo.DeletedFinalStateUnknown{Key: "ns/b"})
	_, badErr := deltafifo.DeletionHandlingObjectToName(deltafifo.DeletedFinalStateUnknown{Key: "a/b/c"})

	require.NoError(t, objErr)
	require.NoError(t, tombErr)
	assert.Equal(t, indexer.NewObjectName("default", "a"), fromObject)
	assert.Equal(t, indexer.NewObjectName("ns", "b"), fromTombstone)
	assert.Error(t, badErr)
}

// TestDeletedObjectNamesItselfInEveryForm reads the name and key of a
// DeletedObject holding the object, a tombstone with or without the last
// known state, and nothing at all: none of them fails.
//
// Diagram: step 6 (OnDelete). client-go: DeletedObject.GetObjectName, GetKey.
func TestDeletedObjectNamesItselfInEveryForm(t *testing.T) {
	type deleted = deltafifo.DeletedObject[*metav1.PartialObjectMetadata]
	stale := obj("a", "1")
	tests := []struct {
		name      string
		d         deleted
		namespace string
		objName   string
		key       string
	}{
		{"the object", deleted{OptionalObj: obj("a", "2")}, "default", "a", "default/a"},
		{"tombstone with a stale object", deleted{OptionalObj: stale, FinalStateUnknown: &deltafifo.DeletedFinalStateUnknown{Key: "default/a", Obj: stale}}, "default", "a", "default/a"},
		{"tombstone without an object", deleted{FinalStateUnknown: &deltafifo.DeletedFinalStateUnknown{Key: "ns/b"}}, "ns", "b", "ns/b"},
		{"tombstone of a cluster-scoped object", deleted{FinalStateUnknown: &deltafifo.DeletedFinalStateUnknown{Key: "node-1"}}, "", "node-1", "node-1"},
		{"tombstone key with extra slashes", deleted{FinalStateUnknown: &deltafifo.DeletedFinalStateUnknown{Key: "ns/b/c"}}, "ns", "b/c", "ns/b/c"},
		{"nothing", deleted{}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, indexer.ObjectName{Namespace: tt.namespace, Name: tt.objName}, tt.d.GetObjectName())
			assert.Equal(t, tt.namespace, tt.d.GetNamespace())
			assert.Equal(t, tt.objName, tt.d.GetName())
			assert.Equal(t, tt.key, tt.d.GetKey())
		})
	}
}
