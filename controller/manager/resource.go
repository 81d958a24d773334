package manager

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// RESTMapper finds the resource that serves a kind. apimachinery's
// *meta.DefaultRESTMapper is one:
//
//	mapper := meta.NewDefaultRESTMapper(nil)
//	mapper.Add(fooGVK, meta.RESTScopeNamespace) // Foo is served by foos
//
// client-go: apimachinery pkg/api/meta.RESTMapper (the one method used).
type RESTMapper interface {
	RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error)
}

// objectKind returns obj's kind: its apiVersion and kind if set, else what
// the Scheme registers for its Go type.
func (m *Manager) objectKind(obj runtime.Object) (schema.GroupVersionKind, bool) {
	return ctrlutil.KindOf(m.scheme, obj)
}

// resourceFor returns the kind of obj and the resource serving it: one the
// Manager has an informer for, else the RESTMapper's answer. An unknown kind
// is an error that meta.IsNoMatchError recognises.
func (m *Manager) resourceFor(obj runtime.Object) (schema.GroupVersionKind, schema.GroupVersionResource, error) {
	gvk, ok := m.objectKind(obj)
	if !ok {
		return gvk, schema.GroupVersionResource{}, fmt.Errorf(
			"controller: client: cannot tell the kind of %T: set its apiVersion and kind, or give the Manager a Scheme that knows it", obj)
	}
	gvr, err := m.resourceForKind(gvk)
	return gvk, gvr, err
}

func (m *Manager) resourceForKind(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	m.mu.Lock()
	gvr, ok := m.kinds[gvk]
	m.mu.Unlock()
	if ok {
		return gvr, nil
	}
	if m.restMapper != nil {
		mapping, err := m.restMapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return gvr, fmt.Errorf("controller: client: kind %s: %w", gvk, err)
		}
		return mapping.Resource, nil
	}
	return gvr, fmt.Errorf("controller: client: no resource known for kind %s (watch it with GetInformer or the Builder, or give the Manager a RESTMapper): %w",
		gvk, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}})
}

// listItemKind returns the kind of the items of list: its own kind
// ("ConfigMapList", from apiVersion and kind or the Scheme) less "List".
func (m *Manager) listItemKind(list runtime.Object) (schema.GroupVersionKind, error) {
	gvk, ok := m.objectKind(list)
	if !ok || !strings.HasSuffix(gvk.Kind, "List") || gvk.Kind == "List" {
		return gvk, fmt.Errorf("controller: client: cannot tell the kind of the items of %T: set its apiVersion and kind (FooList), or give the Manager a Scheme that knows it", list)
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return gvk, nil
}

// exampleFor returns the example object of the cache's informer for gvr:
// the one it was created with, else a new object of the Go type the Scheme
// registers for gvk, else an unstructured object of kind gvk.
func (m *Manager) exampleFor(gvk schema.GroupVersionKind, gvr schema.GroupVersionResource) runtime.Object {
	m.mu.Lock()
	ex, ok := m.examples[gvr]
	m.mu.Unlock()
	if ok {
		return ex
	}
	if m.scheme != nil {
		if obj, err := m.scheme.New(gvk); err == nil {
			return obj
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// into makes dst a copy of src, converting between typed and unstructured
// forms when their Go types differ. src is only read: shared (cached)
// objects are never aliased by dst.
func into(src, dst runtime.Object) error {
	if reflect.TypeOf(src) == reflect.TypeOf(dst) {
		reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
		return nil
	}
	var content map[string]any
	if u, ok := src.(*unstructured.Unstructured); ok {
		content = u.DeepCopy().Object
	} else {
		var err error
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(src); err != nil {
			return fmt.Errorf("controller: client: cannot convert %T to %T: %w", src, dst, err)
		}
	}
	if u, ok := dst.(*unstructured.Unstructured); ok {
		u.Object = content
		return nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, dst); err != nil {
		return fmt.Errorf("controller: client: cannot convert %T to %T: %w", src, dst, err)
	}
	return nil
}

// newListItem returns a new, empty object of the type list's items have
// (*Foo for a FooList with Items []Foo).
func newListItem(list runtime.Object) (runtime.Object, error) {
	itemsPtr, err := meta.GetItemsPtr(list)
	if err != nil {
		return nil, fmt.Errorf("controller: client: %T is not a list: %w", list, err)
	}
	t := reflect.TypeOf(itemsPtr).Elem().Elem()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		if item, ok := reflect.New(t).Interface().(runtime.Object); ok {
			return item, nil
		}
	}
	return nil, fmt.Errorf("controller: client: the items of %T are %v, not API objects", list, t)
}

// keyOf returns the cache key of namespace/name: "namespace/name", or
// "name" without a namespace.
func keyOf(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.Namespace + "/" + key.Name
}
