package deltafifo

import (
	"strings"

	"github.com/informerlab/informerlab/indexer"
)

// DeletionHandlingObjectToName is [indexer.ObjectToName] that also accepts a
// [DeletedFinalStateUnknown] and parses the key it carries. Delete handlers
// use it to name whatever they were given.
//
// client-go: tools/cache.DeletionHandlingObjectToName.
func DeletionHandlingObjectToName(obj any) (indexer.ObjectName, error) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return indexer.ParseObjectName(d.Key)
	}
	return indexer.ObjectToName(obj)
}

// DeletedObject is what an OnDelete handler knows about a deleted object of
// type T, as one value whose name and key can always be read: either the
// object itself (OptionalObj, FinalStateUnknown nil), or the tombstone a
// relist left (FinalStateUnknown set; OptionalObj is then its last known
// state, which may be stale, or the zero T when the informer never saw it).
//
// T is a typed object such as *v1.ConfigMap. Build a DeletedObject from the
// obj an OnDelete receives:
//
//	switch o := obj.(type) {
//	case *v1.ConfigMap:
//		d = DeletedObject[*v1.ConfigMap]{OptionalObj: o}
//	case DeletedFinalStateUnknown:
//		last, _ := o.Obj.(*v1.ConfigMap)
//		d = DeletedObject[*v1.ConfigMap]{OptionalObj: last, FinalStateUnknown: &o}
//	}
//
// client-go: tools/cache.DeletedObject (with its constraint tools/cache.Object
// written inline).
type DeletedObject[T interface {
	comparable
	GetName() string
	GetNamespace() string
}] struct {
	OptionalObj       T
	FinalStateUnknown *DeletedFinalStateUnknown
}

// GetObjectName returns the deleted object's namespace and name: from the
// tombstone's key if there is one (a key without "/" is a name alone; any
// further "/" belong to the name), else from OptionalObj, else the zero
// ObjectName. It cannot fail.
func (d DeletedObject[T]) GetObjectName() indexer.ObjectName {
	if d.FinalStateUnknown != nil {
		namespace, name, found := strings.Cut(d.FinalStateUnknown.Key, "/")
		if !found {
			return indexer.ObjectName{Name: namespace}
		}
		return indexer.ObjectName{Namespace: namespace, Name: name}
	}
	var zero T
	if d.OptionalObj == zero {
		return indexer.ObjectName{}
	}
	return indexer.ObjectName{Namespace: d.OptionalObj.GetNamespace(), Name: d.OptionalObj.GetName()}
}

// GetName returns the deleted object's name, without its namespace.
func (d DeletedObject[T]) GetName() string { return d.GetObjectName().Name }

// GetNamespace returns the deleted object's namespace ("" for a
// cluster-scoped object).
func (d DeletedObject[T]) GetNamespace() string { return d.GetObjectName().Namespace }

// GetKey returns the key the deleted object was cached under: the
// tombstone's key as it is, else namespace/name (or name) of OptionalObj,
// else "". It is the type-safe [DeletionHandlingMetaNamespaceKeyFunc].
func (d DeletedObject[T]) GetKey() string {
	if d.FinalStateUnknown != nil {
		return d.FinalStateUnknown.Key
	}
	var zero T
	if d.OptionalObj == zero {
		return ""
	}
	return d.GetObjectName().String()
}
