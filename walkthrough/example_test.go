package walkthrough

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/workqueue"
)

// Example is the shape of every walkthrough: a fakeapi server, an informer
// on it, a handler that enqueues keys, and a worker that reads the cache.
// Five events for two objects leave two keys in the queue, and the key of
// the object that changed three times leads to its newest state.
func Example() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := srv.Resource(cmGVR).Namespace("demo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
	queue := workqueue.New[string]()
	defer queue.ShutDown()
	seen := make(chan struct{}, 10)
	enqueue := func(obj any) {
		queue.Add(keyOf(obj)) // step 7: the key, never the object
		seen <- struct{}{}
	}
	_, _ = inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, newObj any) { enqueue(newObj) },
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	informer.WaitForCacheSync(ctx, inf)

	for _, cm := range []string{"a", "b"} {
		_, _ = cms.Create(ctx, configMap("demo", cm, "v1"), metav1.CreateOptions{})
	}
	for _, v := range []string{"v2", "v3", "v4"} {
		cm := configMap("demo", "a", v)
		_, _ = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	for range 5 {
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			fmt.Println("the handler missed an event")
			return
		}
	}

	fmt.Println("events: 5, keys queued:", queue.Len())
	key, _ := queue.Get()                     // step 8
	obj, _, _ := inf.GetStore().GetByKey(key) // step 9
	fmt.Println(key, "is at", value(obj))
	queue.Done(key)
	// Output:
	// events: 5, keys queued: 2
	// demo/a is at v4
}
