package indexer_test

import (
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/indexer"
)

// pod returns a small object with metadata only, as an informer would cache it.
func pod(namespace, name, app string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace,
			Name:      name,
			Labels:    map[string]string{"app": app},
		},
	}
}

// sortedNames returns "namespace/name" for each object, sorted: List and
// ByIndex return objects in no particular order.
func sortedNames[T any](objs []T) []string {
	names := []string{}
	for _, obj := range objs {
		key, _ := indexer.MetaNamespaceKeyFunc(obj)
		names = append(names, key)
	}
	slices.Sort(names)
	return names
}

// An Indexer stores objects under their keys (step 5) and files them in
// named indexes, so that a reader can ask "every pod of app web" without
// scanning the cache.
func ExampleIndexer() {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
		"byApp":                indexer.LabelIndexFunc("app"),
	})

	// Step 4 (add object): what the informer does with each popped object.
	_ = idx.Add(pod("shop", "web-1", "web"))
	_ = idx.Add(pod("shop", "db-1", "db"))
	_ = idx.Add(pod("blog", "web-1", "web"))

	webs, _ := idx.ByIndex("byApp", "web")
	fmt.Println("app=web:", sortedNames(webs))
	keys, _ := idx.IndexKeys(indexer.NamespaceIndex, "shop")
	fmt.Println("namespace shop:", keys)

	// The db pod becomes a web pod: the index follows.
	_ = idx.Update(pod("shop", "db-1", "web"))
	fmt.Println("app values:", idx.ListIndexFuncValues("byApp"))

	// Step 9 (get object for key).
	obj, exists, _ := idx.GetByKey("blog/web-1")
	fmt.Println("blog/web-1 cached:", exists, obj.(*metav1.PartialObjectMetadata).Labels["app"])
	// Output:
	// app=web: [blog/web-1 shop/web-1]
	// namespace shop: [shop/db-1 shop/web-1]
	// app values: [web]
	// blog/web-1 cached: true web
}

// An IndexFunc that fails rejects the write: the store is left unchanged,
// where client-go would panic.
func ExampleIndexer_indexFuncError() {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		"byApp": func(obj any) ([]string, error) {
			app := obj.(*metav1.PartialObjectMetadata).Labels["app"]
			if app == "" {
				return nil, fmt.Errorf("pod has no app label")
			}
			return []string{app}, nil
		},
	})
	_ = idx.Add(pod("shop", "web-1", "web"))

	err := idx.Update(pod("shop", "web-1", ""))

	fmt.Println(err)
	obj, _, _ := idx.GetByKey("shop/web-1")
	fmt.Println("still cached with app:", obj.(*metav1.PartialObjectMetadata).Labels["app"])
	// Output:
	// indexer: index "byApp": pod has no app label (key "shop/web-1")
	// still cached with app: web
}

// AddIndexers adds an index to a store that already holds objects: they are
// filed in it at once.
func ExampleIndexer_AddIndexers() {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{})
	_ = idx.Add(pod("shop", "web-1", "web"))
	_ = idx.Add(pod("shop", "web-2", "web"))

	err := idx.AddIndexers(indexer.Indexers{"byApp": indexer.LabelIndexFunc("app")})
	keys, _ := idx.IndexKeys("byApp", "web")

	fmt.Println(err, keys)
	fmt.Println(idx.AddIndexers(indexer.Indexers{"byApp": indexer.LabelIndexFunc("tier")}))
	// Output:
	// <nil> [shop/web-1 shop/web-2]
	// indexer: cannot add index "byApp": an index of that name exists
}

// A Lister is the read-only view a controller's workers use (step 9): Get by
// namespace and name, with the API's NotFound error, and List by label selector.
func ExampleLister() {
	idx := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.Indexers{
		indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc,
	})
	_ = idx.Add(pod("shop", "web-1", "web"))
	_ = idx.Add(pod("shop", "db-1", "db"))
	_ = idx.Add(pod("blog", "web-1", "web"))
	lister := indexer.NewLister(idx, schema.GroupResource{Resource: "pods"})

	obj, err := lister.Namespace("shop").Get("web-1")
	fmt.Println(obj.(*metav1.PartialObjectMetadata).Name, err)

	_, err = lister.Namespace("shop").Get("gone")
	fmt.Println(err, "| IsNotFound:", apierrors.IsNotFound(err))

	webs, _ := lister.List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	fmt.Println("app=web everywhere:", sortedNames(webs))
	inShop, _ := lister.Namespace("shop").List(labels.Everything())
	fmt.Println("everything in shop:", sortedNames(inShop))

	// The objects are the cache's own: copy before changing anything.
	mine := obj.DeepCopyObject().(*metav1.PartialObjectMetadata)
	mine.Labels["app"] = "changed"
	again, _ := lister.Namespace("shop").Get("web-1")
	fmt.Println("cache still says:", again.(*metav1.PartialObjectMetadata).Labels["app"])
	// Output:
	// web-1 <nil>
	// pods "gone" not found | IsNotFound: true
	// app=web everywhere: [blog/web-1 shop/web-1]
	// everything in shop: [shop/db-1 shop/web-1]
	// cache still says: web
}

// MetaNamespaceKeyFunc makes the keys everything else uses, and
// SplitMetaNamespaceKey turns a key back into its parts, as a worker does
// with the key it takes off the workqueue.
func ExampleMetaNamespaceKeyFunc() {
	key, _ := indexer.MetaNamespaceKeyFunc(pod("shop", "web-1", "web"))
	namespace, name, _ := indexer.SplitMetaNamespaceKey(key)
	clusterKey, _ := indexer.MetaNamespaceKeyFunc(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}})

	fmt.Println(key, namespace, name)
	fmt.Println(clusterKey)
	// Output:
	// shop/web-1 shop web-1
	// node-1
}

// An UndeltaStore turns a stream of changes back into a stream of complete
// states: after each write it pushes everything it holds, for a consumer
// that wants the whole set each time (client-go's kubelet reads its static
// pods from one).
func ExampleNewUndeltaStore() {
	store := indexer.NewUndeltaStore(func(objs []any) {
		fmt.Println("now:", sortedNames(objs))
	}, indexer.MetaNamespaceKeyFunc)

	_ = store.Add(pod("shop", "web-1", "web"))
	_ = store.Add(pod("shop", "db-1", "db"))
	_ = store.Delete(pod("shop", "web-1", "web"))
	_ = store.Replace([]any{pod("blog", "web-1", "web")}, "7")
	// Output:
	// now: [shop/web-1]
	// now: [shop/db-1 shop/web-1]
	// now: [shop/db-1]
	// now: [blog/web-1]
}

// A typed view of an Indexer: the index functions take the cached type and
// the queries return it, with no type assertions. An object of another type
// is an error, not a panic.
func ExampleNewTypedIndexer() {
	type Pod = *metav1.PartialObjectMetadata
	raw := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, indexer.TypedIndexersToIndexers(indexer.TypedIndexers[Pod]{
		"byApp": func(p Pod) ([]string, error) { return []string{p.Labels["app"]}, nil },
	}))
	pods := indexer.NewTypedIndexer[Pod](raw)
	_ = pods.Add(pod("shop", "web-1", "web"))
	_ = pods.Add(pod("blog", "web-1", "web"))
	_ = pods.Add(pod("shop", "db-1", "db"))

	webs, _ := pods.ByTypedIndex("byApp", "web")
	fmt.Println("app=web:", sortedNames(webs), "first is a", fmt.Sprintf("%T", webs[0]))

	other := &unstructured.Unstructured{}
	other.SetNamespace("shop")
	other.SetName("web-2")
	fmt.Println(pods.Add(other))
	fmt.Println("cached:", len(pods.List()))

	// Output:
	// app=web: [blog/web-1 shop/web-1] first is a *v1.PartialObjectMetadata
	// indexer: index "byApp": indexer: an index function for *v1.PartialObjectMetadata got a *unstructured.Unstructured (key "shop/web-2")
	// cached: 3
}

// expectation is what a controller remembers after creating Pods for an
// owner: how many add events it still waits for.
type expectation struct {
	owner string
	adds  int
}

// manualClock is a Clock the Example moves by hand.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }

// A TTL store forgets its entries a while after they were written. Here it
// holds a controller's expectations: after creating three Pods for an owner
// it waits for their add events before acting on that owner again, but an
// add that never comes (the create failed on the server) must not block the
// owner for ever. The clock is handed in to make the Example exact; a real
// controller leaves it out.
func ExampleNewTTLStore() {
	clock := &manualClock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	byOwner := func(obj any) (string, error) { return obj.(*expectation).owner, nil }
	expectations := indexer.NewTTLStore(byOwner, 5*time.Minute, indexer.WithClock(clock))

	_ = expectations.Add(&expectation{owner: "shop/web", adds: 3})
	clock.now = clock.now.Add(time.Minute)
	got, exists, _ := expectations.GetByKey("shop/web")
	fmt.Println("after 1m: waiting for", got.(*expectation).adds, "adds:", exists)

	clock.now = clock.now.Add(5 * time.Minute)
	_, exists, _ = expectations.GetByKey("shop/web")
	fmt.Println("after 6m: still waiting:", exists)
	// Output:
	// after 1m: waiting for 3 adds: true
	// after 6m: still waiting: false
}

// A MutationCache lets a controller read its own write before the
// informer's cache has it: the cache is stale until the watch event of the
// write arrives, and the overlay returns the newer copy, compared by
// resourceVersion, until then.
func ExampleMutationCache() {
	informerCache := indexer.NewIndexer(indexer.MetaNamespaceKeyFunc, nil)
	mc := indexer.NewIntegerResourceVersionMutationCache(informerCache, indexer.MutationCacheOptions{})
	_ = informerCache.Add(versioned(pod("shop", "web-1", "web"), "5"))

	// The controller relabels the pod; the API server answers at resourceVersion 6.
	answer := versioned(pod("shop", "web-1", "api"), "6")
	_ = mc.Mutation(answer)
	show := func(when string) {
		cached, _, _ := informerCache.GetByKey("shop/web-1")
		got, _, _ := mc.GetByKey("shop/web-1")
		fmt.Printf("%s: informer cache app=%s, mutation cache app=%s\n", when,
			cached.(*metav1.PartialObjectMetadata).Labels["app"], got.(*metav1.PartialObjectMetadata).Labels["app"])
	}
	show("before the watch event")

	// The watch event arrives; the informer's handler tells the overlay.
	_ = informerCache.Update(answer)
	_ = mc.OnAddOrUpdate(answer)
	show("after the watch event")
	fmt.Println("writes not yet seen by the informer:", mc.Keys())
	// Output:
	// before the watch event: informer cache app=web, mutation cache app=api
	// after the watch event: informer cache app=api, mutation cache app=api
	// writes not yet seen by the informer: []
}

// versioned sets the resourceVersion the API server would have given obj.
func versioned(obj *metav1.PartialObjectMetadata, rv string) *metav1.PartialObjectMetadata {
	obj.ResourceVersion = rv
	return obj
}
