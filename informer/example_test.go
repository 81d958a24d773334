package informer_test

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// An informer on the ConfigMaps of an in-process fakeapi server: a handler
// hears about each change, and a lister reads the cache.
func Example() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	configMaps := srv.Resource(gvr).Namespace("demo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// A ConfigMap is created before the informer starts: the list brings it.
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetName("greeting")
	cm.Object["data"] = map[string]any{"text": "hello"}
	if _, err := configMaps.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		panic(err)
	}

	factory := informer.NewSharedInformerFactory(
		func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return srv.Resource(gvr).Namespace(ns)
		}, 0, informer.WithInformerOptions(informer.WithLogger(slog.New(slog.DiscardHandler))))
	cms, err := factory.ForResource(gvr, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}})
	if err != nil {
		panic(err)
	}

	// Handlers must not modify the objects: they are the cache's own.
	events := make(chan string, 10)
	text := func(obj any) string {
		s, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "data", "text")
		return s
	}
	reg, err := cms.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { events <- "add: " + text(obj) },
		UpdateFunc: func(oldObj, newObj any) {
			events <- fmt.Sprintf("update: %s -> %s", text(oldObj), text(newObj))
		},
		DeleteFunc: func(obj any) { events <- "delete" },
	})
	if err != nil {
		panic(err)
	}

	factory.Start(ctx)
	defer func() {
		cancel()           // stop the informers...
		factory.Shutdown() // ...and wait for every goroutine they started
	}()
	if !informer.WaitForCacheSync(ctx, cms.Informer(), reg) {
		panic("not synced")
	}
	fmt.Println(<-events)

	obj, _ := cms.Lister().Namespace("demo").Get("greeting")
	cm = obj.(*unstructured.Unstructured).DeepCopy() // copy before changing
	cm.Object["data"] = map[string]any{"text": "hello again"}
	if _, err := configMaps.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		panic(err)
	}
	fmt.Println(<-events)

	if err := configMaps.Delete(ctx, "greeting", metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	_, err = cms.Lister().Namespace("demo").Get("greeting")
	fmt.Println(err)

	// Output:
	// add: hello
	// update: hello -> hello again
	// delete
	// configmaps "greeting" not found
}
