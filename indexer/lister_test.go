package indexer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/indexer"
)

var pods = schema.GroupResource{Resource: "pods"}

// namesOf returns the sorted keys of listed objects.
func namesOf(t *testing.T, objs []runtime.Object) []string {
	t.Helper()
	anys := make([]any, len(objs))
	for i, o := range objs {
		anys[i] = o
	}
	return keysOf(t, anys)
}

// recordingIndexer counts the calls that tell an index lookup from a scan.
type recordingIndexer struct {
	indexer.Indexer
	lists, byIndexes int
}

func (r *recordingIndexer) List() []any {
	r.lists++
	return r.Indexer.List()
}

func (r *recordingIndexer) ByIndex(indexName, indexedValue string) ([]any, error) {
	r.byIndexes++
	return r.Indexer.ByIndex(indexName, indexedValue)
}

// fillShop stores a few pods in two namespaces and one cluster-scoped object.
func fillShop(t *testing.T, idx indexer.Indexer) {
	t.Helper()
	for _, obj := range []any{
		newObj("shop", "web-1", "app=web"),
		newObj("shop", "web-2", "app=web", "canary=true"),
		newObj("shop", "db-1", "app=db"),
		newObj("blog", "web-1", "app=web"),
		newObj("", "node-1", "app=web"),
	} {
		require.NoError(t, idx.Add(obj))
	}
	if r, ok := idx.(*recordingIndexer); ok {
		idx = r.Indexer
	}
	requireConsistent(t, idx)
}

// TestListerGetReturnsNotFoundForMissingObject checks the worker's lookup:
// Namespace(ns).Get(name) finds a cached object, and a missing one is an API
// NotFound error naming the resource, exactly what a client Get would return.
// Diagram: step 9. client-go: genericNamespaceLister.Get.
func TestListerGetReturnsNotFoundForMissingObject(t *testing.T) {
	idx := newTestIndexer()
	fillShop(t, idx)
	lister := indexer.NewLister(idx, schema.GroupResource{Group: "apps", Resource: "deployments"})

	found, errFound := lister.Namespace("shop").Get("web-1")
	_, errMissing := lister.Namespace("shop").Get("nope")
	_, errWrongNS := lister.Namespace("other").Get("web-1")

	require.NoError(t, errFound)
	t.Logf("Namespace(shop).Get(web-1) finds %s/%s", found.(*metav1.PartialObjectMetadata).Namespace, found.(*metav1.PartialObjectMetadata).Name)
	t.Logf("Namespace(shop).Get(nope): %v (IsNotFound: %v)", errMissing, apierrors.IsNotFound(errMissing))
	t.Logf("Namespace(other).Get(web-1): %v", errWrongNS)
	assert.Equal(t, "web-1", found.(*metav1.PartialObjectMetadata).Name)
	assert.Equal(t, "shop", found.(*metav1.PartialObjectMetadata).Namespace)
	assert.True(t, apierrors.IsNotFound(errMissing))
	assert.True(t, apierrors.IsNotFound(errWrongNS))
	assert.EqualError(t, errMissing, `deployments.apps "nope" not found`)
	var status apierrors.APIStatus
	require.ErrorAs(t, errMissing, &status)
	assert.Equal(t, "apps", status.Status().Details.Group)
	assert.Equal(t, "nope", status.Status().Details.Name)
}

// TestListerGetFindsClusterScopedObjectByName checks Get without a namespace:
// the key is the bare name.
// Diagram: step 9. client-go: genericLister.Get.
func TestListerGetFindsClusterScopedObjectByName(t *testing.T) {
	idx := newTestIndexer()
	fillShop(t, idx)
	lister := indexer.NewLister(idx, schema.GroupResource{Resource: "nodes"})

	node, err := lister.Get("node-1")
	alsoNode, errAll := lister.Namespace(metav1.NamespaceAll).Get("node-1")
	_, errNamespaced := lister.Get("web-1")

	require.NoError(t, err)
	require.NoError(t, errAll)
	t.Logf("Get(node-1) finds the cluster-scoped node-1 by its bare name; Get(web-1): %v", errNamespaced)
	assert.Same(t, node, alsoNode)
	assert.True(t, apierrors.IsNotFound(errNamespaced), "web-1 lives in a namespace")
}

// TestListerListFiltersByLabelSelector checks List in all namespaces and in
// one, with a selector, with labels.Everything(), a nil selector and
// labels.Nothing().
// Diagram: step 9. client-go: ListAll, ListAllByNamespace.
func TestListerListFiltersByLabelSelector(t *testing.T) {
	idx := newTestIndexer()
	fillShop(t, idx)
	lister := indexer.NewLister(idx, pods)
	webs := labels.SelectorFromSet(labels.Set{"app": "web"})
	canary, err := labels.Parse("app=web,canary=true")
	require.NoError(t, err)

	tests := []struct {
		name      string
		namespace string
		selector  labels.Selector
		want      []string
	}{
		{"all namespaces, app=web", "", webs, []string{"blog/web-1", "node-1", "shop/web-1", "shop/web-2"}},
		{"one namespace, app=web", "shop", webs, []string{"shop/web-1", "shop/web-2"}},
		{"one namespace, two labels", "shop", canary, []string{"shop/web-2"}},
		{"everything in one namespace", "shop", labels.Everything(), []string{"shop/db-1", "shop/web-1", "shop/web-2"}},
		{"nil selector means everything", "blog", nil, []string{"blog/web-1"}},
		{"nothing matches nothing", "shop", labels.Nothing(), []string{}},
		{"nothing in all namespaces", "", labels.Nothing(), []string{}},
		{"empty namespace", "empty", labels.Everything(), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []runtime.Object
			var err error
			if tt.namespace == "" {
				got, err = lister.List(tt.selector)
			} else {
				got, err = lister.Namespace(tt.namespace).List(tt.selector)
			}

			require.NoError(t, err)
			t.Logf("%s: %v", tt.name, namesOf(t, got))
			assert.Equal(t, tt.want, namesOf(t, got))
		})
	}
}

// TestListerNamespaceListUsesNamespaceIndex checks that listing one namespace
// asks the namespace index and never scans the whole cache when the index
// exists, and falls back to a scan, with the same answer, when it does not.
// Diagram: step 9. client-go: ListAllByNamespace.
func TestListerNamespaceListUsesNamespaceIndex(t *testing.T) {
	withIndex := &recordingIndexer{Indexer: newTestIndexer()}
	withoutIndex := &recordingIndexer{Indexer: indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{})}
	fillShop(t, withIndex)
	fillShop(t, withoutIndex)

	indexed, err := indexer.NewLister(withIndex, pods).Namespace("shop").List(labels.Everything())
	require.NoError(t, err)
	scanned, err := indexer.NewLister(withoutIndex, pods).Namespace("shop").List(labels.Everything())
	require.NoError(t, err)

	assert.Equal(t, 1, withIndex.byIndexes)
	t.Logf("Namespace(shop).List with the namespace index: %d ByIndex call, %d full scans", withIndex.byIndexes, withIndex.lists)
	t.Logf("   without the index: %d full scan; both return %v", withoutIndex.lists, namesOf(t, indexed))
	assert.Equal(t, 0, withIndex.lists, "no full scan when the namespace index exists")
	assert.Equal(t, 1, withoutIndex.lists, "a full scan without the index")
	assert.Equal(t, []string{"shop/db-1", "shop/web-1", "shop/web-2"}, namesOf(t, indexed))
	assert.Equal(t, namesOf(t, indexed), namesOf(t, scanned))
}

// TestListerByIndexReturnsIndexedObjects checks the lister's index lookup and
// its error for an unknown index.
// Diagram: step 9. client-go: the generated listers' indexer.ByIndex calls.
func TestListerByIndexReturnsIndexedObjects(t *testing.T) {
	idx := newTestIndexer()
	fillShop(t, idx)
	lister := indexer.NewLister(idx, pods)

	dbs, err := lister.ByIndex(byApp, "db")
	_, errUnknown := lister.ByIndex("nope", "db")

	require.NoError(t, err)
	assert.Equal(t, []string{"shop/db-1"}, namesOf(t, dbs))
	assert.ErrorIs(t, errUnknown, indexer.ErrNoSuchIndex)
}

// TestListerWorksWithUnstructuredObjects checks that the same lister serves
// *unstructured.Unstructured objects, as a dynamic informer caches them.
// Diagram: step 9. client-go: GenericLister over a dynamic informer.
func TestListerWorksWithUnstructuredObjects(t *testing.T) {
	idx := newTestIndexer()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Foo")
	u.SetNamespace("shop")
	u.SetName("foo")
	u.SetLabels(map[string]string{"app": "web"})
	require.NoError(t, idx.Add(u))
	lister := indexer.NewLister(idx, schema.GroupResource{Group: "example.com", Resource: "foos"})

	got, err := lister.Namespace("shop").Get("foo")
	require.NoError(t, err)
	listed, err := lister.Namespace("shop").List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	require.NoError(t, err)

	assert.Same(t, u, got)
	t.Logf("the same lister over an *unstructured.Unstructured Foo: Get returns %s/%s, List(app=web) %d object", got.(*unstructured.Unstructured).GetNamespace(), got.(*unstructured.Unstructured).GetName(), len(listed))
	assert.Len(t, listed, 1)
}

// TestListerReportsValuesThatAreNotRuntimeObjects checks that a cached value
// the lister cannot return as a runtime.Object is an error, not a panic.
// Diagram: step 9. client-go: genericLister (would panic on the type assertion).
func TestListerReportsValuesThatAreNotRuntimeObjects(t *testing.T) {
	idx := newTestIndexer()
	// *metav1.ObjectMeta has metadata (so it can be keyed and indexed) but is
	// not a runtime.Object.
	require.NoError(t, idx.Add(&metav1.ObjectMeta{Namespace: "shop", Name: "bare"}))
	lister := indexer.NewLister(idx, pods)

	_, errGet := lister.Namespace("shop").Get("bare")
	_, errList := lister.List(labels.Everything())
	_, errNSList := lister.Namespace("shop").List(labels.Everything())
	_, errByIndex := lister.ByIndex(indexer.NamespaceIndex, "shop")

	for _, err := range []error{errGet, errList, errNSList, errByIndex} {
		assert.ErrorContains(t, err, "indexer: lister found a *v1.ObjectMeta, which is not a runtime.Object")
	}
}

// TestListAllReportsObjectsWithoutMetadata checks that ListAll and
// ListAllByNamespace return an error when a selector must read labels from a
// value that has none, and do not need labels for an empty selector.
// Diagram: step 9. client-go: ListAll.
func TestListAllReportsObjectsWithoutMetadata(t *testing.T) {
	store := indexer.NewStore(func(obj any) (string, error) { return "k", nil })
	require.NoError(t, store.Add("just a string"))
	noIndex := indexer.NewIndexer(func(obj any) (string, error) { return "k", nil }, indexer.Indexers{})
	require.NoError(t, noIndex.Add("just a string"))
	var appended []any
	collect := func(obj any) { appended = append(appended, obj) }

	errSelect := indexer.ListAll(store, labels.SelectorFromSet(labels.Set{"a": "b"}), collect)
	errEverything := indexer.ListAll(store, labels.Everything(), collect)
	errScan := indexer.ListAllByNamespace(noIndex, "shop", labels.Everything(), collect)

	assert.ErrorContains(t, errSelect, "indexer: matching labels")
	assert.NoError(t, errEverything)
	assert.Equal(t, []any{"just a string"}, appended)
	assert.ErrorContains(t, errScan, `indexer: listing namespace "shop"`)
	_, err := meta.Accessor("just a string")
	assert.ErrorIs(t, errScan, err, "the cause is kept")
}
