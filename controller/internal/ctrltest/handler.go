package ctrltest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Owned returns ns/name with the given owner references.
func Owned(ns, name string, refs ...metav1.OwnerReference) *unstructured.Unstructured {
	u := NewCM(ns, name)
	u.SetOwnerReferences(refs)
	return u
}

func OwnerRef(apiVersion, kind, name string, isController bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &isController}
}
