package reflector_test

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// A Reflector on fakeapi, the in-memory API server. When the server ends
// every watch (as a restart would), the Reflector re-watches from its last
// resourceVersion without relisting; after a compaction, the re-watch gets
// 410 Expired and the Reflector relists, which reveals a deletion that no
// watch reported.
func Example_fakeapi() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	configMaps := srv.Resource(configMapsGVR).Namespace("default")
	ctx := context.Background()
	create := func(name string) {
		if _, err := configMaps.Create(ctx, configMap("default", name), metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}
	create("web")
	create("db")

	// Print every request the Reflector makes (from its goroutine, so in order).
	lw := reflector.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			fmt.Printf("List  resourceVersion=%q\n", opts.ResourceVersion)
			return configMaps.List(ctx, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			fmt.Printf("Watch resourceVersion=%q\n", opts.ResourceVersion)
			return configMaps.Watch(ctx, opts)
		},
	}
	store := &mapStore{objs: map[string]string{}, done: make(chan string)}
	r := reflector.New(lw, expectedConfigMap(), store, reflector.Options{
		Name:    "configmaps",
		Logger:  slog.New(slog.DiscardHandler),
		Backoff: reflector.Backoff{Initial: 1}, // retry at once: this is a demo
	})
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		r.Run(runCtx)
		close(stopped)
	}()
	<-store.done // Replace

	create("cache")
	<-store.done // Add

	fmt.Println("-- the server ends every watch")
	srv.CloseWatches()
	create("queue")
	<-store.done // Add, through the new watch

	fmt.Println("-- a silent delete, then the server compacts its history")
	if err := srv.SilentResource(configMapsGVR).Namespace("default").Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	srv.Compact()
	srv.CloseWatches()
	<-store.done // Replace, after the relist

	cancel()
	<-stopped
	fmt.Println("Store:")
	store.print()

	// Output:
	// List  resourceVersion="0"
	// Replace 2 objects at resourceVersion 3
	// Watch resourceVersion="3"
	// Add default/cache
	// -- the server ends every watch
	// Watch resourceVersion="4"
	// Add default/queue
	// -- a silent delete, then the server compacts its history
	// Watch resourceVersion="5"
	// List  resourceVersion="5"
	// Replace 3 objects at resourceVersion 6
	// Watch resourceVersion="6"
	// Store:
	//   default/cache@4
	//   default/queue@5
	//   default/web@2
}
