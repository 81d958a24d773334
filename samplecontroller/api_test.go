package samplecontroller

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestTypedResourceConvertsUnstructured: over a handle that returns
// unstructured objects (fakeapi without a scheme), the wrapper hands out
// *FooList with the snapshot's resourceVersion, *Foo from Get and from
// watch events; an object that cannot be converted becomes a watch ERROR
// event instead of a panic; Stop closes the result channel.
// Diagram: step 1. client-go: runtime.DefaultUnstructuredConverter.
func TestTypedResourceConvertsUnstructured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		srv := fakeapi.New(fakeapi.Options{})
		defer srv.Close()
		// Foos without their Go type: fakeapi validates nothing, so it
		// stores the Foo with replicas "three" the wrapper must survive.
		schemaless := FooResource
		schemaless.Object = nil
		require.NoError(t, srv.Register(schemaless))
		raw := srv.Resource(FoosGVR).Namespace("demo")
		api := typedAPI(func(gvr schema.GroupVersionResource, ns string) Resource { return srv.Resource(gvr).Namespace(ns) }, NewScheme())
		foos := api(FoosGVR, "demo")
		_, err := raw.Create(ctx, unstructuredFoo("a", int64(2)), metav1.CreateOptions{})
		require.NoError(t, err)

		list, err := foos.List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		got, err := foos.Get(ctx, "a", metav1.GetOptions{})
		require.NoError(t, err)
		w, err := foos.Watch(ctx, metav1.ListOptions{ResourceVersion: list.(*FooList).ResourceVersion})
		require.NoError(t, err)
		_, err = raw.Create(ctx, unstructuredFoo("b", int64(3)), metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = raw.Create(ctx, unstructuredFoo("c", "three"), metav1.CreateOptions{})
		require.NoError(t, err)
		added := <-w.ResultChan()
		broken := <-w.ResultChan()
		w.Stop()
		_, open := <-w.ResultChan()

		fl := list.(*FooList)
		t.Logf("unstructured Foos from fakeapi come back as %T and %T; the watch delivers %s %T, then for a Foo with replicas \"three\": %s %v", list, got, added.Type, added.Object, broken.Type, broken.Object.(*metav1.Status).Message)
		assert.Equal(t, "2", fl.ResourceVersion)
		require.Len(t, fl.Items, 1)
		assert.Equal(t, int32(2), *fl.Items[0].Spec.Replicas)
		assert.Equal(t, "web", got.(*Foo).Spec.DeploymentName)
		assert.Equal(t, FooGVK, got.GetObjectKind().GroupVersionKind())
		assert.Equal(t, watch.Added, added.Type)
		assert.Equal(t, int32(3), *added.Object.(*Foo).Spec.Replicas)
		assert.Equal(t, watch.Error, broken.Type)
		assert.Contains(t, broken.Object.(*metav1.Status).Message, "samplecontroller: converting Foo demo/c")
		assert.False(t, open, "closed after Stop")
	})
}

func unstructuredFoo(name string, replicas any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": FooGroupVersion.String(), "kind": "Foo",
		"metadata": map[string]any{"name": name, "namespace": "demo"},
		"spec":     map[string]any{"deploymentName": "web", "replicas": replicas},
	}}
}
