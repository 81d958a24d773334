package informer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

var configMaps = schema.GroupResource{Resource: "configmaps"}

func partial(ns, name string, lbls map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

// TestTypedListerListsGetsAndReportsNotFound fills an indexer with typed
// objects and reads it through a Lister of that type: label selection, a
// namespace view, a Get, and a NotFound API error for a missing name.
//
// Diagram: step 9. client-go: listers (generated), tools/cache.ResourceIndexer.
func TestTypedListerListsGetsAndReportsNotFound(t *testing.T) {
	idx := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc,
		indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
	require.NoError(t, idx.Add(partial("a", "web", map[string]string{"app": "web"})))
	require.NoError(t, idx.Add(partial("a", "db", map[string]string{"app": "db"})))
	require.NoError(t, idx.Add(partial("b", "web", map[string]string{"app": "web"})))
	l := informer.NewLister[*metav1.PartialObjectMetadata](idx, configMaps)

	web, err := l.List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	require.NoError(t, err)
	inA, err := l.Namespace("a").List(labels.Everything())
	require.NoError(t, err)
	got, err := l.Namespace("b").Get("web")
	require.NoError(t, err)
	_, missing := l.Namespace("b").Get("db")
	t.Logf("List(app=web): %d objects; Namespace(a).List: %d; Namespace(b).Get(web): %s/%s; Namespace(b).Get(db): %v", len(web), len(inA), got.Namespace, got.Name, missing)

	assert.Len(t, web, 2)
	assert.Len(t, inA, 2)
	assert.Equal(t, "b", got.Namespace)
	assert.True(t, apierrors.IsNotFound(missing), "got %v", missing)
}

// TestUnstructuredListerAndTypeMismatch reads unstructured objects through a
// Lister of *unstructured.Unstructured, and shows that a Lister of the wrong
// type reports an error instead of panicking.
//
// Diagram: step 9. client-go: dynamiclister.
func TestUnstructuredListerAndTypeMismatch(t *testing.T) {
	idx := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, nil)
	u := &unstructured.Unstructured{}
	u.SetName("cluster-scoped")
	require.NoError(t, idx.Add(u))

	got, err := informer.NewLister[*unstructured.Unstructured](idx, configMaps).Get("cluster-scoped")
	require.NoError(t, err)
	_, wrong := informer.NewLister[*metav1.PartialObjectMetadata](idx, configMaps).List(nil)
	t.Logf("a Lister[*unstructured.Unstructured] gets %q; a Lister of the wrong type: %v", got.GetName(), wrong)

	assert.Equal(t, "cluster-scoped", got.GetName())
	assert.ErrorContains(t, wrong, "informer: lister of *v1.PartialObjectMetadata found a *unstructured.Unstructured")
}
