package indexer

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
)

// KeyFunc computes the key an object is stored under. Keys are strings in
// namespace/name form, or just name for cluster-scoped objects.
//
// client-go: tools/cache.KeyFunc.
type KeyFunc func(obj any) (string, error)

// KeyError is returned when a KeyFunc cannot compute a key for Obj.
//
// client-go: tools/cache.KeyError.
type KeyError struct {
	Obj any
	Err error
}

// Error describes the object that could not be keyed and why.
func (k KeyError) Error() string {
	return fmt.Sprintf("indexer: couldn't create key for object %+v: %v", k.Obj, k.Err)
}

// Unwrap returns the underlying error, so errors.Is and errors.As see through a KeyError.
func (k KeyError) Unwrap() error {
	return k.Err
}

// ExplicitKey is a key that is used as is: MetaNamespaceKeyFunc returns it unchanged.
// It lets callers hand a key where an object is expected.
//
// client-go: tools/cache.ExplicitKey.
type ExplicitKey string

// MetaNamespaceKeyFunc is the default KeyFunc: "namespace/name" for namespaced
// objects, "name" for cluster-scoped ones. An ExplicitKey is returned unchanged;
// anything without object metadata is an error.
//
// client-go: tools/cache.MetaNamespaceKeyFunc.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	if key, ok := obj.(ExplicitKey); ok {
		return string(key), nil
	}
	objName, err := ObjectToName(obj)
	if err != nil {
		return "", err
	}
	return objName.String(), nil
}

// SplitMetaNamespaceKey splits a key made by MetaNamespaceKeyFunc back into
// its namespace and name. A key without a slash is a cluster-scoped name.
//
// client-go: tools/cache.SplitMetaNamespaceKey.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	parts := strings.Split(key, "/")
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf("indexer: unexpected key format: %q", key)
}

// ObjectName is the identity of an object within one resource: its namespace
// (empty for cluster-scoped objects) and its name.
//
// client-go: tools/cache.ObjectName.
type ObjectName struct {
	Namespace string
	Name      string
}

// NewObjectName returns the ObjectName for a namespace and a name.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// String encodes the name as a key: "namespace/name", or "name" without a namespace.
func (n ObjectName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// AsNamespacedName converts to apimachinery's NamespacedName.
func (n ObjectName) AsNamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
}

// ParseObjectName parses a key made by MetaNamespaceKeyFunc.
//
// client-go: tools/cache.ParseObjectName.
func ParseObjectName(key string) (ObjectName, error) {
	ns, name, err := SplitMetaNamespaceKey(key)
	return ObjectName{Namespace: ns, Name: name}, err
}

// ObjectToName returns the ObjectName of anything with object metadata.
//
// client-go: tools/cache.ObjectToName.
func ObjectToName(obj any) (ObjectName, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ObjectName{}, fmt.Errorf("indexer: object has no meta: %w", err)
	}
	return ObjectName{Namespace: m.GetNamespace(), Name: m.GetName()}, nil
}
