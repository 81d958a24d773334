package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
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

// The Informer box alone: NewInformerWithOptions fills a cache and calls
// one handler, on the process loop itself, after the cache holds each
// change. Most programs want a SharedIndexInformer; this is what it is
// built on.
func ExampleNewInformerWithOptions() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	configMaps := srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("demo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{"a", "b"} {
		cm := &unstructured.Unstructured{}
		cm.SetAPIVersion("v1")
		cm.SetKind("ConfigMap")
		cm.SetName(name)
		if _, err := configMaps.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}

	events := make(chan string, 10)
	var cache indexer.Store
	cache, controller := informer.NewInformerWithOptions(informer.InformerOptions{
		ListerWatcher: configMaps,
		Handler: informer.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, isInInitialList bool) {
				key, _ := indexer.MetaNamespaceKeyFunc(obj)
				_, cached, _ := cache.GetByKey(key)
				events <- fmt.Sprintf("add %s (initial list: %v, cached: %v)", key, isInInitialList, cached)
			},
			DeleteFunc: func(obj any) {
				key, _ := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
				events <- "delete " + key
			},
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		controller.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done // Run returns once the Reflector and the loop have stopped
	}()

	if !informer.WaitForCacheSync(ctx, controller) {
		panic("not synced")
	}
	initial := []string{<-events, <-events}
	sort.Strings(initial)
	fmt.Println(initial[0])
	fmt.Println(initial[1])
	if err := configMaps.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	fmt.Println("cached:", cache.ListKeys())

	// Output:
	// add demo/a (initial list: true, cached: true)
	// add demo/b (initial list: true, cached: true)
	// delete demo/a
	// cached: [demo/b]
}

// WaitFor names what it waits for: with a what, it logs each checker as it
// syncs, and the ones it gave up on. Here one informer syncs and a plain
// function never does; the wait ends after a second.
func ExampleWaitFor() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	configMaps := srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	quiet := slog.New(slog.DiscardHandler)
	inf := informer.NewSharedIndexInformer(configMaps, nil, 0, nil, informer.WithName("configmaps"), informer.WithLogger(quiet))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()

	// WaitFor logs to slog.Default(); print its lines without the time.
	old := slog.Default()
	defer slog.SetDefault(old)
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	waitCtx, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	never := informer.InformerSynced(func() bool { return false })

	ok := informer.WaitFor(waitCtx, "caches", inf, never)
	fmt.Println("synced:", ok)

	// Output:
	// level=INFO msg="informer: waiting" for=caches
	// level=INFO msg="informer: done waiting" for=caches instance="SharedIndexInformer configmaps"
	// level=INFO msg="informer: timed out waiting" for=caches cause="context deadline exceeded" instances=[InformerSynced]
	// synced: false
}

// A typed view of an informer: the handler gets *unstructured.Unstructured
// (any typed object works the same way) and a DeletedObject on delete, the
// index function takes one too, with no type assertions. The Lister is the
// other typed view of the same informer, for reading.
func ExampleNewTypedSharedIndexInformer() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	configMaps := srv.Resource(gvr).Namespace("demo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{"blue", "green"} {
		cm := &unstructured.Unstructured{}
		cm.SetAPIVersion("v1")
		cm.SetKind("ConfigMap")
		cm.SetName(name)
		cm.SetLabels(map[string]string{"team": "web"})
		if _, err := configMaps.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}

	type ConfigMap = *unstructured.Unstructured
	inf := informer.NewSharedIndexInformer(configMaps, nil, 0, nil, informer.WithLogger(slog.New(slog.DiscardHandler)))
	typed := informer.NewTypedSharedIndexInformer[ConfigMap](inf)
	if err := typed.AddTypedIndexers(indexer.TypedIndexers[ConfigMap]{
		"byTeam": func(cm ConfigMap) ([]string, error) { return []string{cm.GetLabels()["team"]}, nil },
	}); err != nil {
		panic(err)
	}
	events := make(chan string, 10)
	reg, err := typed.AddTypedEventHandler(informer.TypedResourceEventHandlerFuncs[ConfigMap]{
		AddFunc: func(cm ConfigMap) { events <- "add " + cm.GetName() },
		DeleteFunc: func(d deltafifo.DeletedObject[ConfigMap]) {
			events <- "delete " + d.GetKey() // a key even for a tombstone
		},
	})
	if err != nil {
		panic(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		typed.Run(ctx) // the typed view is the informer
	}()
	defer func() {
		cancel()
		<-done
	}()
	if !informer.WaitForCacheSync(ctx, typed, reg) {
		panic("not synced")
	}
	initial := []string{<-events, <-events}
	sort.Strings(initial)
	fmt.Println(initial)

	web, _ := typed.GetTypedIndexer().ByTypedIndex("byTeam", "web")
	fmt.Println("team web:", len(web), "ConfigMaps")
	if err := configMaps.Delete(ctx, "blue", metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	lister := informer.NewLister[ConfigMap](inf.GetIndexer(), gvr.GroupResource())
	green, _ := lister.Namespace("demo").Get("green")
	fmt.Println("lister:", green.GetName())

	// Output:
	// [add blue add green]
	// team web: 2 ConfigMaps
	// delete demo/blue
	// lister: green
}

// An InformerName is reserved once per process; under it each resource is
// reserved once, and only a reserved identity records metrics. Release
// gives the name back.
func ExampleNewInformerName() {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	name, err := informer.NewInformerName("example-controller-manager")
	if err != nil {
		panic(err)
	}
	_, err = informer.NewInformerName("example-controller-manager")
	fmt.Println(err)

	first := name.WithResource(pods)
	second := name.WithResource(pods)
	fmt.Println(first, "reserved:", first.Reserved())
	fmt.Println("a second informer of pods reserved:", second.Reserved())

	// An informer named by its identity; informer.WithInformerName does the
	// same for every informer of a factory.
	inf := informer.NewSharedIndexInformer(nil, nil, 0, nil, informer.WithIdentifier(first))
	fmt.Println(inf.Name())

	name.Release()
	fmt.Println("after Release:", first.Reserved())
	again, err := informer.NewInformerName("example-controller-manager")
	fmt.Println("reserved again:", err == nil)
	again.Release()

	// Output:
	// informer: informer name "example-controller-manager" is already registered
	// example-controller-manager /v1, Resource=pods reserved: true
	// a second informer of pods reserved: false
	// SharedIndexInformer example-controller-manager /v1, Resource=pods
	// after Release: false
	// reserved again: true
}
