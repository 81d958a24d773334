package indexer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
)

// byApp is the name of the label index most tests use.
const byApp = "byApp"

// newTestIndexer returns an Indexer with the namespace index and an index on
// the "app" label.
func newTestIndexer() indexer.Indexer {
	return indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
		byApp:                  indexer.LabelIndexFunc("app"),
	})
}

// byNodes files an object under every node listed in its "nodes" annotation
// (comma separated): a multi-valued index.
func byNodes(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	nodes := m.GetAnnotations()["nodes"]
	if nodes == "" {
		return nil, nil
	}
	return strings.Split(nodes, ","), nil
}

// withNodes sets the "nodes" annotation read by byNodes.
func withNodes(obj *metav1.PartialObjectMetadata, nodes string) *metav1.PartialObjectMetadata {
	obj.Annotations = map[string]string{"nodes": nodes}
	return obj
}

// TestIndexerByIndexFindsObjectsByIndexedValue shows what an index is for: a
// reader asks for every object of one namespace, or of one app, and gets them
// without scanning the cache.
// Diagram: steps 5 and 9. client-go: threadSafeMap.ByIndex, IndexKeys.
func TestIndexerByIndexFindsObjectsByIndexedValue(t *testing.T) {
	idx := newTestIndexer()
	for _, obj := range []any{
		newObj("shop", "web-1", "app=web"),
		newObj("shop", "web-2", "app=web"),
		newObj("shop", "db-1", "app=db"),
		newObj("blog", "web-1", "app=web"),
		newObj("blog", "no-app"),
	} {
		require.NoError(t, idx.Add(obj))
		requireConsistent(t, idx)
	}

	inShop, err := idx.ByIndex(indexer.NamespaceIndex, "shop")
	require.NoError(t, err)
	webs, err := idx.ByIndex(byApp, "web")
	require.NoError(t, err)
	webKeys, err := idx.IndexKeys(byApp, "web")
	require.NoError(t, err)
	none, err := idx.ByIndex(byApp, "cache")
	require.NoError(t, err)

	t.Log("five objects in two namespaces, with app=web, app=db or no app label")
	t.Logf("   ByIndex(namespace, shop) = %v", keysOf(t, inShop))
	t.Logf("   ByIndex(byApp, web) = %v; ByIndex(byApp, cache) = %v", keysOf(t, webs), keysOf(t, none))
	t.Logf("   ListIndexFuncValues(byApp) = %v: the object without the label is not indexed", idx.ListIndexFuncValues(byApp))
	assert.Equal(t, []string{"shop/db-1", "shop/web-1", "shop/web-2"}, keysOf(t, inShop))
	assert.Equal(t, []string{"blog/web-1", "shop/web-1", "shop/web-2"}, keysOf(t, webs))
	assert.Equal(t, []string{"blog/web-1", "shop/web-1", "shop/web-2"}, webKeys, "IndexKeys is sorted")
	assert.Empty(t, none)
	assert.Equal(t, []string{"db", "web"}, idx.ListIndexFuncValues(byApp), "objects without the label are not indexed")
	assert.Equal(t, []string{"blog", "shop"}, idx.ListIndexFuncValues(indexer.NamespaceIndex))
}

// TestIndexerUpdateMovesObjectBetweenValues checks that an update whose
// indexed value changed removes the key from the old value and files it under
// the new one, and that an unchanged value leaves it where it was.
// Diagram: step 5. client-go: storeIndex.updateSingleIndex.
func TestIndexerUpdateMovesObjectBetweenValues(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "pod", "app=web")))
	require.NoError(t, idx.Add(newObj("shop", "other", "app=web")))

	require.NoError(t, idx.Update(newObj("shop", "pod", "app=db")))
	requireConsistent(t, idx)

	web, _ := idx.IndexKeys(byApp, "web")
	db, _ := idx.IndexKeys(byApp, "db")
	t.Logf("shop/pod goes from app=web to app=db: IndexKeys(byApp, web) = %v, IndexKeys(byApp, db) = %v", web, db)
	assert.Equal(t, []string{"shop/other"}, web)
	assert.Equal(t, []string{"shop/pod"}, db)

	require.NoError(t, idx.Update(newObj("shop", "pod", "app=db", "tier=x")))
	requireConsistent(t, idx)

	db, _ = idx.IndexKeys(byApp, "db")
	assert.Equal(t, []string{"shop/pod"}, db)
}

// TestIndexerDeletesEmptyValueSets checks that when the last object leaves an
// indexed value, the value disappears from the index instead of lingering as
// an empty set (client-go fixed that slow leak).
// Diagram: step 5. client-go: storeIndex.deleteKeyFromIndex.
func TestIndexerDeletesEmptyValueSets(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))
	require.NoError(t, idx.Add(newObj("shop", "db", "app=db")))
	require.Equal(t, []string{"db", "web"}, idx.ListIndexFuncValues(byApp))

	require.NoError(t, idx.Update(newObj("shop", "web", "app=cache")))
	requireConsistent(t, idx)
	assert.Equal(t, []string{"cache", "db"}, idx.ListIndexFuncValues(byApp))
	t.Logf("shop/web moves from app=web to app=cache: the values are now %v; web, left empty, is gone", idx.ListIndexFuncValues(byApp))

	require.NoError(t, idx.Delete(newObj("shop", "db")))
	requireConsistent(t, idx)
	assert.Equal(t, []string{"cache"}, idx.ListIndexFuncValues(byApp))

	require.NoError(t, idx.Delete(newObj("shop", "web")))
	requireConsistent(t, idx)
	assert.Empty(t, idx.ListIndexFuncValues(byApp))
	t.Logf("   both objects deleted: the values are now %v", idx.ListIndexFuncValues(byApp))
	assert.Empty(t, idx.ListIndexFuncValues(indexer.NamespaceIndex))
}

// TestIndexerMultiValuedIndexFilesObjectUnderEveryValue checks an IndexFunc
// returning several values: the object is found under each, Index returns the
// union without duplicates, and duplicate values are filed once.
// Diagram: step 5. client-go: IndexFunc, threadSafeMap.Index.
func TestIndexerMultiValuedIndexFilesObjectUnderEveryValue(t *testing.T) {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{"byNode": byNodes})
	require.NoError(t, idx.Add(withNodes(newObj("ns", "a"), "n1,n2")))
	require.NoError(t, idx.Add(withNodes(newObj("ns", "b"), "n2,n3,n2")))
	require.NoError(t, idx.Add(withNodes(newObj("ns", "c"), "n4")))
	require.NoError(t, idx.Add(newObj("ns", "unscheduled")))
	requireConsistent(t, idx)

	onN2, err := idx.IndexKeys("byNode", "n2")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/a", "ns/b"}, onN2)
	t.Logf("a on n1,n2; b on n2,n3,n2; c on n4: IndexKeys(byNode, n2) = %v", onN2)
	shareWithB, err := idx.Index("byNode", withNodes(newObj("", "probe"), "n1,n3"))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/a", "ns/b"}, keysOf(t, shareWithB), "a and b once each")
	t.Logf("   Index(byNode, an object on n1,n3) = %v: the union, each once", keysOf(t, shareWithB))
	shareNothing, err := idx.Index("byNode", newObj("", "probe"))
	require.NoError(t, err)
	assert.Empty(t, shareNothing)
	assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, idx.ListIndexFuncValues("byNode"))

	require.NoError(t, idx.Update(withNodes(newObj("ns", "b"), "n3")))
	requireConsistent(t, idx)
	onN2, _ = idx.IndexKeys("byNode", "n2")
	assert.Equal(t, []string{"ns/a"}, onN2)
}

// TestIndexerIndexWithSingleValueUsesThatValue checks Index for an object
// with one value: the objects filed under it.
// Diagram: step 9. client-go: threadSafeMap.Index.
func TestIndexerIndexWithSingleValueUsesThatValue(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "web")))
	require.NoError(t, idx.Add(newObj("blog", "web")))

	got, err := idx.Index(indexer.NamespaceIndex, newObj("shop", "anything"))

	require.NoError(t, err)
	t.Logf("Index(namespace, an object in shop) = %v", keysOf(t, got))
	assert.Equal(t, []string{"shop/web"}, keysOf(t, got))
}

// TestIndexerUnknownIndexNameIsError checks that asking for an index that does
// not exist is an error wrapping ErrNoSuchIndex, except ListIndexFuncValues,
// which has no error result and returns nothing.
// Diagram: step 9. client-go: "Index with name %s does not exist".
func TestIndexerUnknownIndexNameIsError(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))

	_, errIndex := idx.Index("nope", newObj("shop", "web"))
	_, errByIndex := idx.ByIndex("nope", "web")
	_, errKeys := idx.IndexKeys("nope", "web")

	assert.ErrorIs(t, errIndex, indexer.ErrNoSuchIndex)
	t.Logf("ByIndex(nope, web): %v", errByIndex)
	assert.ErrorIs(t, errByIndex, indexer.ErrNoSuchIndex)
	assert.ErrorIs(t, errKeys, indexer.ErrNoSuchIndex)
	assert.ErrorContains(t, errByIndex, `"nope"`)
	assert.Nil(t, idx.ListIndexFuncValues("nope"))
}

// TestIndexerReplaceRebuildsIndexes checks that Replace rebuilds every index
// from the new list: values of dropped objects vanish, new ones appear.
// Diagram: step 5. client-go: threadSafeMap.Replace.
func TestIndexerReplaceRebuildsIndexes(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))
	require.NoError(t, idx.Add(newObj("old", "gone", "app=legacy")))

	require.NoError(t, idx.Replace([]any{
		newObj("shop", "web", "app=frontend"),
		newObj("blog", "db", "app=db"),
	}, "100"))
	requireConsistent(t, idx)

	assert.Equal(t, []string{"db", "frontend"}, idx.ListIndexFuncValues(byApp))
	t.Logf("held shop/web app=web and old/gone app=legacy; after Replace([shop/web app=frontend, blog/db app=db]) the app values are %v", idx.ListIndexFuncValues(byApp))
	assert.Equal(t, []string{"blog", "shop"}, idx.ListIndexFuncValues(indexer.NamespaceIndex))
	frontend, _ := idx.IndexKeys(byApp, "frontend")
	assert.Equal(t, []string{"shop/web"}, frontend)
}

// TestIndexerAddIndexersIndexesExistingObjects checks that an index added to a
// store that already holds objects files all of them at once, and that later
// writes keep it up to date.
// Diagram: step 5. client-go: threadSafeMap.AddIndexers.
func TestIndexerAddIndexersIndexesExistingObjects(t *testing.T) {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{})
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))
	require.NoError(t, idx.Add(newObj("blog", "web", "app=web")))
	requireConsistent(t, idx)

	require.NoError(t, idx.AddIndexers(indexer.Indexers{byApp: indexer.LabelIndexFunc("app")}))
	requireConsistent(t, idx)
	require.NoError(t, idx.AddIndexers(indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc}))
	requireConsistent(t, idx)

	web, err := idx.IndexKeys(byApp, "web")
	require.NoError(t, err)
	assert.Equal(t, []string{"blog/web", "shop/web"}, web)
	t.Logf("two objects stored, then AddIndexers(byApp): IndexKeys(byApp, web) = %v at once", web)
	assert.Equal(t, []string{"blog", "shop"}, idx.ListIndexFuncValues(indexer.NamespaceIndex))
	assert.Len(t, idx.GetIndexers(), 2)

	require.NoError(t, idx.Update(newObj("blog", "web", "app=db")))
	requireConsistent(t, idx)
	web, _ = idx.IndexKeys(byApp, "web")
	assert.Equal(t, []string{"shop/web"}, web)
}

// TestIndexerAddIndexersRejectsBadIndexers checks that a name already in use
// or a nil IndexFunc is refused, and that nothing of the request is added.
// Diagram: step 5. client-go: threadSafeMap.AddIndexers ("indexer conflict").
func TestIndexerAddIndexersRejectsBadIndexers(t *testing.T) {
	idx := newTestIndexer()
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))

	errConflict := idx.AddIndexers(indexer.Indexers{
		"fresh":                indexer.LabelIndexFunc("tier"),
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
	})
	errNil := idx.AddIndexers(indexer.Indexers{"fresh": nil})

	assert.ErrorContains(t, errConflict, `indexer: cannot add index "namespace"`)
	t.Logf("AddIndexers with a name in use: %v", errConflict)
	t.Logf("AddIndexers with a nil IndexFunc: %v; indexes now: %d", errNil, len(idx.GetIndexers()))
	assert.ErrorContains(t, errNil, "nil IndexFunc")
	assert.Len(t, idx.GetIndexers(), 2, "neither request added anything")
	assert.Nil(t, idx.ListIndexFuncValues("fresh"))
	requireConsistent(t, idx)
}

// TestMetaNamespaceIndexFuncAndLabelIndexFunc checks the two ready-made index
// functions, including the empty namespace of a cluster-scoped object and an
// object without the label.
// Diagram: step 5. client-go: MetaNamespaceIndexFunc (LabelIndexFunc is ours).
func TestMetaNamespaceIndexFuncAndLabelIndexFunc(t *testing.T) {
	byTier := indexer.LabelIndexFunc("tier")

	ns, err := indexer.MetaNamespaceIndexFunc(newObj("shop", "web"))
	require.NoError(t, err)
	clusterScoped, err := indexer.MetaNamespaceIndexFunc(newObj("", "node-1"))
	require.NoError(t, err)
	tier, err := byTier(newObj("shop", "web", "tier=frontend"))
	require.NoError(t, err)
	noTier, err := byTier(newObj("shop", "web", "app=web"))
	require.NoError(t, err)
	emptyTier, err := byTier(newObj("shop", "web", "tier="))
	require.NoError(t, err)
	_, errNS := indexer.MetaNamespaceIndexFunc(42)
	_, errLabel := byTier(42)

	assert.Equal(t, []string{"shop"}, ns)
	assert.Equal(t, []string{""}, clusterScoped)
	assert.Equal(t, []string{"frontend"}, tier)
	assert.Empty(t, noTier)
	assert.Equal(t, []string{""}, emptyTier, "an empty label value is still a value")
	assert.Error(t, errNS)
	assert.Error(t, errLabel)
}

// TestGetIndexersReturnsACopy checks that neither the map given to NewIndexer
// nor the one GetIndexers returns can change the indexer's indexes behind its
// back.
// Diagram: step 5. client-go: threadSafeMap.GetIndexers (returns its own map).
func TestGetIndexersReturnsACopy(t *testing.T) {
	given := indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc}
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, given)

	given["sneaky"] = indexer.LabelIndexFunc("app")
	got := idx.GetIndexers()
	got["sneakier"] = indexer.LabelIndexFunc("app")
	require.NoError(t, idx.Add(newObj("shop", "web", "app=web")))

	assert.Len(t, idx.GetIndexers(), 1)
	assert.Nil(t, idx.ListIndexFuncValues("sneaky"))
	requireConsistent(t, idx)
}
