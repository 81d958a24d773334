package indexersuite

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
)

// Indexer is the API the suite grades: a thread-safe store of objects
// by key, with named indexes. indexer.Indexer has every one of these
// methods (and a few more the labs leave out).
type Indexer interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	List() []any
	ListKeys() []string
	Get(obj any) (item any, exists bool, err error)
	GetByKey(key string) (item any, exists bool, err error)
	Replace(list []any, resourceVersion string) error
	Index(indexName string, obj any) ([]any, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	ListIndexFuncValues(indexName string) []string
	ByIndex(indexName, indexedValue string) ([]any, error)
	AddIndexers(newIndexers indexer.Indexers) error
}

// Impl is how an implementation plugs in.
type Impl struct {
	// NewIndexer returns an empty Indexer that keys objects with keyFunc
	// and maintains one index per entry of indexers.
	NewIndexer func(keyFunc indexer.KeyFunc, indexers indexer.Indexers) Indexer
}

// Reference is informerlab's own implementation: what
// indexer/suite_test.go grades, and what labs/1-indexer wires in under the
// labs_reference build tag.
var Reference = Impl{
	NewIndexer: func(kf indexer.KeyFunc, ix indexer.Indexers) Indexer { return indexer.NewIndexer(kf, ix) },
}

const (
	docKeys     = "docs/indexer.md#1-keys"
	docLayers   = "docs/indexer.md#2-three-layers"
	docIndexes  = "docs/indexer.md#3-indexes"
	docFailure  = "docs/indexer.md#4-when-an-indexfunc-fails-reject-the-write-change-nothing"
	docConcurrn = "docs/indexer.md#8-concurrency"
)

// byApp is the label index every behaviour's indexer has, next to the
// namespace index.
const byApp = "byApp"

// Behaviours returns the graded behaviours of an Indexer, in the order a
// learner meets them.
func Behaviours(impl Impl) []grade.Behaviour {
	newIdx := func() Indexer {
		return impl.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
			indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
			byApp:                  indexer.LabelIndexFunc("app"),
		})
	}
	return []grade.Behaviour{
		{
			Name: "AddThenGetByKey",
			Want: "an added object is found by its key (GetByKey) and by an object with that key (Get)",
			Doc:  docKeys,
			Test: func(t *testing.T) {
				idx := newIdx()
				web := obj("shop", "web", "web", "1")
				require.NoError(t, idx.Add(web))
				got, ok, err := idx.GetByKey("shop/web")
				require.NoError(t, err)
				require.True(t, ok, "GetByKey(shop/web) after Add")
				assert.Same(t, web, got, "the store keeps the object itself")
				got, ok, err = idx.Get(obj("shop", "web", "", "9"))
				require.NoError(t, err)
				require.True(t, ok, "Get with another object of the same key")
				assert.Same(t, web, got)
				_, ok, err = idx.GetByKey("shop/db")
				require.NoError(t, err)
				assert.False(t, ok, "a key never added is not found")
			},
		},
		{
			Name: "AddAndUpdateAreUpserts",
			Want: "Add and Update both store the object under its key, replacing what was there",
			Doc:  docLayers,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Update(obj("shop", "web", "web", "1")), "Update of a new key")
				v2 := obj("shop", "web", "web", "2")
				require.NoError(t, idx.Add(v2), "Add of a stored key")
				got, ok, err := idx.GetByKey("shop/web")
				require.NoError(t, err)
				require.True(t, ok)
				assert.Same(t, v2, got)
				assert.Len(t, idx.List(), 1, "one key, one object")
			},
		},
		{
			Name: "DeleteRemovesByKey",
			Want: "Delete removes the object with the given object's key, whatever its contents; deleting an absent key is not an error",
			Doc:  docLayers,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				require.NoError(t, idx.Add(obj("shop", "db", "db", "1")))
				require.NoError(t, idx.Delete(obj("shop", "web", "other", "7")))
				_, ok, err := idx.GetByKey("shop/web")
				require.NoError(t, err)
				assert.False(t, ok, "shop/web deleted")
				assert.ElementsMatch(t, []string{"shop/db"}, idx.ListKeys())
				require.NoError(t, idx.Delete(obj("shop", "web", "", "1")), "deleting it again")
			},
		},
		{
			Name: "ListAndListKeysReturnEverything",
			Want: "List returns every stored object and ListKeys every key, each once",
			Doc:  docLayers,
			Test: func(t *testing.T) {
				idx := newIdx()
				assert.Empty(t, idx.List(), "a new store is empty")
				var want []string
				for i := range 5 {
					name := "cm-" + strconv.Itoa(i)
					require.NoError(t, idx.Add(obj("blue", name, "", "1")))
					require.NoError(t, idx.Update(obj("blue", name, "", "2")))
					want = append(want, "blue/"+name)
				}
				assert.ElementsMatch(t, want, idx.ListKeys())
				assert.ElementsMatch(t, want, keysOf(t, idx.List()))
			},
		},
		{
			Name: "KeyErrorRejectsWrite",
			Want: "a write whose key cannot be computed returns an error and changes nothing",
			Doc:  docKeys,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				assert.Error(t, idx.Add("not an object"), "Add of a string")
				assert.Error(t, idx.Update(42), "Update of an int")
				assert.ElementsMatch(t, []string{"shop/web"}, idx.ListKeys())
				bare := impl.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{})
				assert.Error(t, bare.Add("not an object"), "Add of a string to a store without indexes")
				assert.Empty(t, bare.ListKeys(), "without indexes too, the key's error alone rejects the write")
			},
		},
		{
			Name: "ByIndexFindsObjectsByValue",
			Want: "ByIndex(name, value) returns exactly the objects the IndexFunc files under value, and IndexKeys their keys",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := newIdx()
				for _, o := range []any{
					obj("shop", "web-1", "web", "1"), obj("shop", "db-1", "db", "1"),
					obj("blog", "web-1", "web", "1"), obj("blog", "plain", "", "1"),
				} {
					require.NoError(t, idx.Add(o))
				}
				assertIndex(t, idx, byApp, "web", "blog/web-1", "shop/web-1")
				assertIndex(t, idx, indexer.NamespaceIndex, "shop", "shop/db-1", "shop/web-1")
				assertIndex(t, idx, indexer.NamespaceIndex, "blog", "blog/plain", "blog/web-1")
				assertIndex(t, idx, byApp, "cache")
				assert.ElementsMatch(t, []string{"db", "web"}, idx.ListIndexFuncValues(byApp),
					"an object without the label is in no value of the label index")
			},
		},
		{
			Name: "UpdateMovesObjectBetweenValues",
			Want: "when an update changes an object's index value, it leaves the old value and joins the new one",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "web-1", "web", "1")))
				require.NoError(t, idx.Add(obj("shop", "web-2", "web", "1")))
				require.NoError(t, idx.Update(obj("shop", "web-1", "api", "2")))
				assertIndex(t, idx, byApp, "web", "shop/web-2")
				assertIndex(t, idx, byApp, "api", "shop/web-1")
				require.NoError(t, idx.Update(obj("shop", "web-2", "", "2")))
				assertIndex(t, idx, byApp, "web")
			},
		},
		{
			Name: "EmptyValuesDisappear",
			Want: "when the last object leaves a value (by Delete or Update), ListIndexFuncValues no longer lists it",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				require.NoError(t, idx.Add(obj("shop", "db", "db", "1")))
				require.NoError(t, idx.Delete(obj("shop", "web", "web", "1")))
				assert.ElementsMatch(t, []string{"db"}, idx.ListIndexFuncValues(byApp))
				assertIndex(t, idx, byApp, "web")
				require.NoError(t, idx.Update(obj("shop", "db", "pg", "2")))
				assert.ElementsMatch(t, []string{"pg"}, idx.ListIndexFuncValues(byApp))
				require.NoError(t, idx.Delete(obj("shop", "db", "", "")))
				assert.Empty(t, idx.ListIndexFuncValues(byApp))
				assert.Empty(t, idx.ListIndexFuncValues(indexer.NamespaceIndex))
			},
		},
		{
			Name: "MultiValuedIndexFilesUnderEveryValue",
			Want: "an IndexFunc returning several values files the object under each (duplicates once); Index returns each sharing object once",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := impl.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{"byNode": nodesIndex})
				a := withNodes(obj("ns", "a", "", "1"), "n1,n2,n1")
				b := withNodes(obj("ns", "b", "", "1"), "n2,n3")
				c := withNodes(obj("ns", "c", "", "1"), "n4")
				for _, o := range []any{a, b, c} {
					require.NoError(t, idx.Add(o))
				}
				assertIndex(t, idx, "byNode", "n1", "ns/a")
				assertIndex(t, idx, "byNode", "n2", "ns/a", "ns/b")
				assertIndex(t, idx, "byNode", "n3", "ns/b")
				got, err := idx.Index("byNode", withNodes(obj("ns", "probe", "", "1"), "n1,n2,n3"))
				require.NoError(t, err)
				assert.ElementsMatch(t, []string{"ns/a", "ns/b"}, keysOf(t, got), "each object once")
			},
		},
		{
			Name: "UnknownIndexIsAnError",
			Want: "ByIndex, IndexKeys and Index on an index name that does not exist return an error",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				_, err := idx.ByIndex("nope", "web")
				assert.Error(t, err, "ByIndex")
				_, err = idx.IndexKeys("nope", "web")
				assert.Error(t, err, "IndexKeys")
				_, err = idx.Index("nope", obj("shop", "web", "web", "1"))
				assert.Error(t, err, "Index")
				assert.Empty(t, idx.ListIndexFuncValues("nope"))
			},
		},
		{
			Name: "FailingIndexFuncRejectsWrite",
			Want: "when an IndexFunc fails, Add/Update return its error and the store and every index stay exactly as they were",
			Doc:  docFailure,
			Test: func(t *testing.T) {
				idx := impl.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
					byApp:   indexer.LabelIndexFunc("app"),
					"picky": pickyIndex,
				})
				v1 := obj("shop", "web", "web", "1")
				require.NoError(t, idx.Add(v1))
				assert.Error(t, idx.Update(withLabel(obj("shop", "web", "api", "2"), "reject", "yes")), "Update")
				assert.Error(t, idx.Add(withLabel(obj("shop", "new", "api", "1"), "reject", "yes")), "Add")
				got, ok, err := idx.GetByKey("shop/web")
				require.NoError(t, err)
				require.True(t, ok)
				assert.Same(t, v1, got, "the old version stays cached")
				assert.ElementsMatch(t, []string{"shop/web"}, idx.ListKeys())
				assertIndex(t, idx, byApp, "web", "shop/web")
				assertIndex(t, idx, byApp, "api")
			},
		},
		{
			Name: "ReplaceSwapsWholeContents",
			Want: "after Replace the store holds exactly the list, and every index is rebuilt from it",
			Doc:  docLayers,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "old", "web", "1")))
				require.NoError(t, idx.Add(obj("shop", "kept", "web", "1")))
				require.NoError(t, idx.Replace([]any{
					obj("shop", "kept", "api", "2"), obj("blog", "new", "web", "2"),
				}, "2"))
				assert.ElementsMatch(t, []string{"shop/kept", "blog/new"}, idx.ListKeys())
				assertIndex(t, idx, byApp, "web", "blog/new")
				assertIndex(t, idx, byApp, "api", "shop/kept")
				assertIndex(t, idx, indexer.NamespaceIndex, "shop", "shop/kept")
				require.NoError(t, idx.Replace(nil, "3"))
				assert.Empty(t, idx.ListKeys())
				assert.Empty(t, idx.ListIndexFuncValues(byApp))
			},
		},
		{
			Name: "ReplaceIsAllOrNothing",
			Want: "a Replace with one object whose key or index value fails returns the error and changes nothing",
			Doc:  docFailure,
			Test: func(t *testing.T) {
				idx := impl.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
					byApp:   indexer.LabelIndexFunc("app"),
					"picky": pickyIndex,
				})
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				assert.Error(t, idx.Replace([]any{obj("shop", "a", "x", "2"), "not an object"}, "2"), "bad key")
				assert.Error(t, idx.Replace([]any{obj("shop", "a", "x", "2"),
					withLabel(obj("shop", "b", "x", "2"), "reject", "yes")}, "2"), "failing IndexFunc")
				assert.ElementsMatch(t, []string{"shop/web"}, idx.ListKeys())
				assertIndex(t, idx, byApp, "web", "shop/web")
				assertIndex(t, idx, byApp, "x")
			},
		},
		{
			Name: "AddIndexersFilesStoredObjects",
			Want: "AddIndexers on a store that holds objects files every one of them in the new index at once",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := impl.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{})
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				require.NoError(t, idx.Add(obj("blog", "web", "web", "1")))
				require.NoError(t, idx.AddIndexers(indexer.Indexers{byApp: indexer.LabelIndexFunc("app")}))
				assertIndex(t, idx, byApp, "web", "blog/web", "shop/web")
				require.NoError(t, idx.Add(obj("shop", "db", "db", "1")))
				assertIndex(t, idx, byApp, "db", "shop/db")
			},
		},
		{
			Name: "AddIndexersRejectsTakenName",
			Want: "AddIndexers with a name already in use returns an error and keeps the existing index",
			Doc:  docIndexes,
			Test: func(t *testing.T) {
				idx := newIdx()
				require.NoError(t, idx.Add(obj("shop", "web", "web", "1")))
				assert.Error(t, idx.AddIndexers(indexer.Indexers{byApp: indexer.MetaNamespaceIndexFunc}))
				assertIndex(t, idx, byApp, "web", "shop/web")
				assertIndex(t, idx, byApp, "shop")
			},
		},
		{
			Name: "ResultsAreTheCallersOwn",
			Want: "the slices List, ListKeys, ByIndex and IndexKeys return belong to the caller: later writes to the store do not change them",
			Doc:  docConcurrn,
			Test: func(t *testing.T) {
				idx := newIdx()
				for _, name := range []string{"a", "b", "c"} {
					require.NoError(t, idx.Add(obj("shop", name, "web", "1")))
				}
				keys := idx.ListKeys()
				list := idx.List()
				webKeys, err := idx.IndexKeys(byApp, "web")
				require.NoError(t, err)
				webObjs, err := idx.ByIndex(byApp, "web")
				require.NoError(t, err)
				wantKeys, wantList := slices.Clone(keys), slices.Clone(list)
				wantWebKeys, wantWebObjs := slices.Clone(webKeys), slices.Clone(webObjs)

				require.NoError(t, idx.Delete(obj("shop", "a", "", "")))
				require.NoError(t, idx.Add(obj("shop", "d", "web", "1")))
				require.NoError(t, idx.Update(obj("shop", "b", "api", "2")))

				assert.Equal(t, wantKeys, keys, "ListKeys' result changed after later writes")
				assert.Equal(t, wantList, list, "List's result changed after later writes")
				assert.Equal(t, wantWebKeys, webKeys, "IndexKeys' result changed after later writes")
				assert.Equal(t, wantWebObjs, webObjs, "ByIndex's result changed after later writes")
			},
		},
		{
			Name: "SafeForConcurrentUse",
			Want: "writers and readers on many goroutines at once neither race (go test -race) nor lose a write",
			Doc:  docConcurrn,
			Test: func(t *testing.T) {
				idx := newIdx()
				const writers, perWriter = 4, 200
				var dones []<-chan struct{}
				for w := range writers {
					dones = append(dones, grade.Go(t, func() {
						for i := range perWriter {
							name := fmt.Sprintf("cm-%d-%d", w, i)
							assert.NoError(t, idx.Add(obj("ns", name, "web", "1")))
							assert.NoError(t, idx.Update(obj("ns", name, "api", "2")))
							if i%2 == 1 {
								assert.NoError(t, idx.Delete(obj("ns", name, "", "")))
							}
						}
					}))
					dones = append(dones, grade.Go(t, func() {
						for range perWriter {
							idx.List()
							_, _ = idx.ByIndex(byApp, "web")
							idx.ListIndexFuncValues(byApp)
						}
					}))
				}
				for _, d := range dones {
					<-d
				}
				assert.Len(t, idx.ListKeys(), writers*perWriter/2)
				keys, err := idx.IndexKeys(byApp, "api")
				require.NoError(t, err)
				assert.Len(t, keys, writers*perWriter/2)
				assertIndex(t, idx, byApp, "web")
			},
		},
		modelBehaviour(impl),
	}
}

// obj returns a ConfigMap's metadata with the app label set to app
// (none if empty).
func obj(namespace, name, app, rv string) *metav1.PartialObjectMetadata {
	o := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: rv},
	}
	if app != "" {
		o.Labels = map[string]string{"app": app}
	}
	return o
}

func withLabel(o *metav1.PartialObjectMetadata, key, value string) *metav1.PartialObjectMetadata {
	if o.Labels == nil {
		o.Labels = map[string]string{}
	}
	o.Labels[key] = value
	return o
}

// withNodes sets the comma-separated nodes annotation nodesIndex reads.
func withNodes(o *metav1.PartialObjectMetadata, nodes string) *metav1.PartialObjectMetadata {
	o.Annotations = map[string]string{"nodes": nodes}
	return o
}

// nodesIndex files an object under every node of its nodes annotation.
func nodesIndex(o any) ([]string, error) {
	m, ok := o.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("nodesIndex: %T is not an object", o)
	}
	return strings.Split(m.GetAnnotations()["nodes"], ","), nil
}

// pickyIndex fails on objects labelled reject=yes.
func pickyIndex(o any) ([]string, error) {
	m, ok := o.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("pickyIndex: %T is not an object", o)
	}
	if m.GetLabels()["reject"] == "yes" {
		return nil, fmt.Errorf("pickyIndex: %s is labelled reject=yes", m.GetName())
	}
	return []string{"any"}, nil
}

// keysOf returns the namespace/name keys of objs.
func keysOf(t *testing.T, objs []any) []string {
	t.Helper()
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		k, err := indexer.MetaNamespaceKeyFunc(o)
		require.NoError(t, err)
		keys = append(keys, k)
	}
	return keys
}

// assertIndex checks that exactly wantKeys are filed under value, through
// both ByIndex and IndexKeys.
func assertIndex(t *testing.T, idx Indexer, index, value string, wantKeys ...string) {
	t.Helper()
	if wantKeys == nil {
		wantKeys = []string{}
	}
	objs, err := idx.ByIndex(index, value)
	require.NoError(t, err, "ByIndex(%s, %s)", index, value)
	assert.ElementsMatch(t, wantKeys, keysOf(t, objs), "ByIndex(%s, %s)", index, value)
	keys, err := idx.IndexKeys(index, value)
	require.NoError(t, err, "IndexKeys(%s, %s)", index, value)
	if keys == nil {
		keys = []string{}
	}
	assert.ElementsMatch(t, wantKeys, keys, "IndexKeys(%s, %s)", index, value)
}
