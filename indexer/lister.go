package indexer

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Lister is the read-only view of an [Indexer] that controllers get (step 9):
// it can list, get and look up by index, and has no method that writes. Only
// the informer keeps the writable Indexer, so only it changes the cache.
//
// Read-only means the Lister cannot change which objects are cached. The
// objects it returns are the cached ones themselves, shared with every other
// reader; never modify them, DeepCopy first.
//
// Results are []runtime.Object, like client-go's GenericLister; a cached value
// that is not a runtime.Object is reported as an error. Get looks objects up by
// the keys [MetaNamespaceKeyFunc] makes, so the Indexer must use that KeyFunc
// (or one that makes the same keys). A Lister is safe for concurrent use.
// Build it with NewLister; the zero value is not usable.
//
// client-go: tools/cache.GenericLister.
type Lister struct {
	indexer  Indexer
	resource schema.GroupResource
}

// NewLister returns a Lister over indexer. resource names what it lists, for
// the NotFound errors Get returns (for example {Group: "apps", Resource: "deployments"}).
//
// client-go: tools/cache.NewGenericLister.
func NewLister(indexer Indexer, resource schema.GroupResource) *Lister {
	return &Lister{indexer: indexer, resource: resource}
}

// List returns the objects, in every namespace, whose labels match selector.
// A nil selector selects everything; labels.Nothing() selects nothing.
func (l *Lister) List(selector labels.Selector) ([]runtime.Object, error) {
	var objs []any
	if err := ListAll(l.indexer, selector, func(obj any) { objs = append(objs, obj) }); err != nil {
		return nil, err
	}
	return asRuntimeObjects(objs)
}

// Get returns the cluster-scoped object called name, or a NotFound API error
// (test it with apierrors.IsNotFound). For namespaced objects use Namespace.
// Step 9 (get object for key): the lookup a worker makes for each key.
func (l *Lister) Get(name string) (runtime.Object, error) {
	return l.get(name, name)
}

// ByIndex returns the objects filed under indexedValue in the named index.
func (l *Lister) ByIndex(indexName, indexedValue string) ([]runtime.Object, error) {
	objs, err := l.indexer.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return asRuntimeObjects(objs)
}

// Namespace returns a Lister limited to one namespace. The empty namespace
// (metav1.NamespaceAll) lists every namespace and gets cluster-scoped objects.
// client-go calls this ByNamespace on GenericLister.
func (l *Lister) Namespace(namespace string) NamespaceLister {
	return NamespaceLister{lister: l, namespace: namespace}
}

// get returns the object under key, or NotFound for name.
func (l *Lister) get(key, name string) (runtime.Object, error) {
	obj, exists, err := l.indexer.GetByKey(key)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(l.resource, name)
	}
	return asRuntimeObject(obj)
}

// NamespaceLister is a [Lister] limited to one namespace. Get it from
// [Lister.Namespace]; the zero value is not usable.
//
// client-go: tools/cache.GenericNamespaceLister.
type NamespaceLister struct {
	lister    *Lister
	namespace string
}

// List returns the objects in the namespace whose labels match selector. It
// uses the [NamespaceIndex] when the Indexer has one, and otherwise scans
// every object.
func (n NamespaceLister) List(selector labels.Selector) ([]runtime.Object, error) {
	var objs []any
	err := ListAllByNamespace(n.lister.indexer, n.namespace, selector, func(obj any) { objs = append(objs, obj) })
	if err != nil {
		return nil, err
	}
	return asRuntimeObjects(objs)
}

// Get returns the object called name in the namespace, or a NotFound API
// error (test it with apierrors.IsNotFound).
// Step 9 (get object for key): namespace and name are the key's two halves.
func (n NamespaceLister) Get(name string) (runtime.Object, error) {
	return n.lister.get(NewObjectName(n.namespace, name).String(), name)
}

// AppendFunc receives each object ListAll and ListAllByNamespace select.
//
// client-go: tools/cache.AppendFunc.
type AppendFunc func(obj any)

// ListAll calls appendFn for every object in store whose labels match
// selector. A nil or empty selector selects everything without reading labels;
// labels.Nothing() selects nothing without reading the store. An object
// without metadata is an error when labels must be read.
//
// client-go: tools/cache.ListAll.
func ListAll(store Store, selector labels.Selector, appendFn AppendFunc) error {
	if selector == labels.Nothing() {
		return nil
	}
	return appendMatching(store.List(), selector, appendFn)
}

// ListAllByNamespace is ListAll limited to one namespace. The empty namespace
// (metav1.NamespaceAll) means all namespaces. It reads the namespace from the
// [NamespaceIndex] if the Indexer has that index, and otherwise scans every
// object and compares namespaces (client-go logs this fallback; it is not an
// error, only slower).
//
// client-go: tools/cache.ListAllByNamespace.
func ListAllByNamespace(indexer Indexer, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	if namespace == metav1.NamespaceAll {
		return ListAll(indexer, selector, appendFn)
	}
	if selector == labels.Nothing() {
		return nil
	}
	objs, err := indexer.ByIndex(NamespaceIndex, namespace)
	if err == nil {
		return appendMatching(objs, selector, appendFn)
	}
	if !errors.Is(err, ErrNoSuchIndex) {
		return err
	}
	// No namespace index: scan everything.
	inNamespace := []any{}
	for _, obj := range indexer.List() {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("indexer: listing namespace %q: %w", namespace, err)
		}
		if m.GetNamespace() == namespace {
			inNamespace = append(inNamespace, obj)
		}
	}
	return appendMatching(inNamespace, selector, appendFn)
}

// appendMatching calls appendFn for each of objs whose labels match selector.
func appendMatching(objs []any, selector labels.Selector, appendFn AppendFunc) error {
	if selector == nil || selector.Empty() {
		for _, obj := range objs {
			appendFn(obj)
		}
		return nil
	}
	for _, obj := range objs {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("indexer: matching labels: %w", err)
		}
		if selector.Matches(labels.Set(m.GetLabels())) {
			appendFn(obj)
		}
	}
	return nil
}

// asRuntimeObjects converts cached values to runtime.Objects.
func asRuntimeObjects(objs []any) ([]runtime.Object, error) {
	out := make([]runtime.Object, 0, len(objs))
	for _, obj := range objs {
		o, err := asRuntimeObject(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// asRuntimeObject converts one cached value to a runtime.Object.
func asRuntimeObject(obj any) (runtime.Object, error) {
	o, ok := obj.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("indexer: lister found a %T, which is not a runtime.Object", obj)
	}
	return o, nil
}
