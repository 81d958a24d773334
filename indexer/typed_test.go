package indexer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/indexer"
)

// typedObj is the type the typed tests cache.
type typedObj = *metav1.PartialObjectMetadata

// byAppTyped files an object under its "app" label, with no type assertion.
func byAppTyped(obj typedObj) ([]string, error) {
	if app, ok := obj.Labels["app"]; ok {
		return []string{app}, nil
	}
	return nil, nil
}

// TestTypedIndexerAnswersQueriesWithTypedObjects: a typed index function
// files objects as an untyped one would, and the typed queries return the
// cached objects themselves, as T; an index added later through the typed
// view files the objects already stored.
//
// Diagram: step 5. client-go: tools/cache TypedIndexer (typedIndexer)
func TestTypedIndexerAnswersQueriesWithTypedObjects(t *testing.T) {
	web1, web2, db := newObj("shop", "web-1", "app=web"), newObj("blog", "web-1", "app=web"), newObj("shop", "db-1", "app=db")
	raw := indexer.NewIndexer(nil, indexer.TypedIndexersToIndexers(indexer.TypedIndexers[typedObj]{byApp: byAppTyped}))
	idx := indexer.NewTypedIndexer[typedObj](raw)
	for _, obj := range []typedObj{web1, web2, db} {
		require.NoError(t, idx.Add(obj))
	}

	byValue, errByValue := idx.ByTypedIndex(byApp, "web")
	likeWeb1, errLike := idx.TypedIndex(byApp, web1)
	errAdd := idx.AddTypedIndexers(indexer.TypedIndexers[typedObj]{
		"byName": func(obj typedObj) ([]string, error) { return []string{obj.Name}, nil },
	})
	byName, errByName := idx.ByTypedIndex("byName", "web-1")

	require.NoError(t, errByValue)
	require.NoError(t, errLike)
	require.NoError(t, errAdd)
	require.NoError(t, errByName)
	assert.ElementsMatch(t, []typedObj{web1, web2}, byValue)
	assert.ElementsMatch(t, []typedObj{web1, web2}, likeWeb1)
	assert.ElementsMatch(t, []typedObj{web1, web2}, byName)
	for _, obj := range likeWeb1 {
		assert.True(t, obj == web1 || obj == web2, "the cached object itself, not a copy")
	}
	requireConsistent(t, raw)
}

// TestTypedIndexFuncRejectsAnObjectOfAnotherType: an object of another type
// reaching a typed index function is an error that names both types, so
// the write is refused and the store left as it was; client-go's typed
// function panics on its type assertion.
//
// Diagram: step 5. client-go: tools/cache TypedIndexerFuncToIndexerFunc (obj.(T))
func TestTypedIndexFuncRejectsAnObjectOfAnotherType(t *testing.T) {
	idx := indexer.NewIndexer(nil, indexer.Indexers{byApp: indexer.TypedIndexerFuncToIndexerFunc(byAppTyped)})
	require.NoError(t, idx.Add(newObj("shop", "web-1", "app=web")))
	other := &unstructured.Unstructured{}
	other.SetNamespace("shop")
	other.SetName("web-1")

	err := idx.Update(other)

	require.Error(t, err)
	assert.Contains(t, err.Error(), "indexer: an index function for *v1.PartialObjectMetadata got a *unstructured.Unstructured")
	cached, _, _ := idx.GetByKey("shop/web-1")
	assert.IsType(t, &metav1.PartialObjectMetadata{}, cached, "the old object stays")
	requireConsistent(t, idx)
}

// TestTypedIndexerReportsACachedObjectOfAnotherType: a typed view over a
// cache that holds an object of another type returns an error from a query
// that meets it, not a panic; an unknown index is the untyped store's
// ErrNoSuchIndex.
//
// Diagram: step 9. client-go: tools/cache typedIndexer (obj.(T))
func TestTypedIndexerReportsACachedObjectOfAnotherType(t *testing.T) {
	raw := indexer.NewIndexer(nil, indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc})
	other := &unstructured.Unstructured{}
	other.SetNamespace("shop")
	other.SetName("web-1")
	require.NoError(t, raw.Add(other))
	idx := indexer.NewTypedIndexer[typedObj](raw)

	_, errOther := idx.ByTypedIndex(indexer.NamespaceIndex, "shop")
	_, errUnknown := idx.ByTypedIndex("nope", "shop")

	assert.EqualError(t, errOther, "indexer: a typed indexer of *v1.PartialObjectMetadata found a *unstructured.Unstructured in the cache")
	assert.ErrorIs(t, errUnknown, indexer.ErrNoSuchIndex)
}

// TestTypedIndexersToIndexersKeepsANilFunctionNil: a nil typed function
// stays nil, which the store refuses as any nil IndexFunc, rather than
// becoming a function that panics on the first object.
//
// Diagram: step 5. client-go: tools/cache TypedIndexersToIndexers
func TestTypedIndexersToIndexersKeepsANilFunctionNil(t *testing.T) {
	untyped := indexer.TypedIndexersToIndexers(indexer.TypedIndexers[typedObj]{"nil": nil, byApp: byAppTyped})
	idx := indexer.NewIndexer(nil, nil)

	err := idx.AddIndexers(untyped)

	require.Len(t, untyped, 2)
	assert.Nil(t, untyped["nil"])
	assert.Error(t, err)
	assert.Empty(t, idx.GetIndexers(), "AddIndexers is all or nothing")
}
