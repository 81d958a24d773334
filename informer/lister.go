package informer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/indexer"
)

// Lister is a typed, read-only view of an informer's cache (step 9): T is
// the type the informer caches, a typed object such as *v1.ConfigMap or
// *unstructured.Unstructured. It is [indexer.Lister] with its results
// converted to T; a cached object of another type is reported as an error.
//
// The objects it returns are the cached ones, shared with every handler and
// reader: never modify them, DeepCopy first. A Lister is safe for concurrent
// use; its zero value is not usable.
//
// client-go: listers.ResourceIndexer[T] (listers/generic_helpers.go) (behind the generated listers,
// e.g. listers/core/v1.ConfigMapLister).
type Lister[T runtime.Object] struct {
	lister *indexer.Lister
}

// NewLister returns a Lister over the indexer of an informer (GetIndexer).
// resource names what it lists, for NotFound errors.
func NewLister[T runtime.Object](idx indexer.Indexer, resource schema.GroupResource) Lister[T] {
	return Lister[T]{lister: indexer.NewLister(idx, resource)}
}

// List returns the objects in every namespace whose labels match selector
// (nil selects everything).
func (l Lister[T]) List(selector labels.Selector) ([]T, error) {
	objs, err := l.lister.List(selector)
	if err != nil {
		return nil, err
	}
	return convertAll[T](objs)
}

// Get returns the cluster-scoped object called name, or a NotFound API error.
func (l Lister[T]) Get(name string) (T, error) {
	return convert[T](l.lister.Get(name))
}

// Namespace returns the view of one namespace.
func (l Lister[T]) Namespace(namespace string) NamespaceLister[T] {
	return NamespaceLister[T]{lister: l.lister.Namespace(namespace)}
}

// NamespaceLister is a [Lister] limited to one namespace.
//
// client-go: listers.ResourceIndexer[T] (listers/generic_helpers.go) (namespaced), e.g. listers/core/v1.ConfigMapNamespaceLister.
type NamespaceLister[T runtime.Object] struct {
	lister indexer.NamespaceLister
}

// List returns the objects in the namespace whose labels match selector.
func (n NamespaceLister[T]) List(selector labels.Selector) ([]T, error) {
	objs, err := n.lister.List(selector)
	if err != nil {
		return nil, err
	}
	return convertAll[T](objs)
}

// Get returns the object called name in the namespace, or a NotFound API
// error (apierrors.IsNotFound).
func (n NamespaceLister[T]) Get(name string) (T, error) {
	return convert[T](n.lister.Get(name))
}

func convert[T runtime.Object](obj runtime.Object, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("informer: lister of %T found a %T in the cache", zero, obj)
	}
	return t, nil
}

func convertAll[T runtime.Object](objs []runtime.Object) ([]T, error) {
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		t, err := convert[T](obj, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
