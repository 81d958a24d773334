package controller

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/reflector"
)

// ResourceInterface is the API handle of one resource, optionally narrowed
// to a namespace: the method set that fakeapi's and client's ResourceClient
// share, so either fits as it is (see [manager.Options.NewClient]). List and
// Watch make it a reflector.ListerWatcher too.
//
// client-go: dynamic.ResourceInterface.
type ResourceInterface interface {
	reflector.ListerWatcher
	Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error)
	Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error)
	Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
	UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// ResourceInterfaceFunc returns the API handle of a resource in a namespace
// ("" for all namespaces, or a cluster-scoped resource).
//
// client-go: dynamic.Interface.Resource(gvr).Namespace(ns).
type ResourceInterfaceFunc func(gvr schema.GroupVersionResource, namespace string) ResourceInterface
