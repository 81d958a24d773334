package controller_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// ExampleController runs steps 6 to 9 end to end: an informer over a fake API
// server, a Kind source that enqueues the key of every ConfigMap that changes,
// and a Reconciler that reads the current object from the cache by key —
// finding it gone after a deletion.
func ExampleController() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := srv.Resource(ctrltest.CMGVR).Namespace("demo")
	for _, name := range []string{"a", "b"} {
		cm := ctrltest.NewCM("demo", name)
		cm.Object["data"] = map[string]any{"color": "blue"}
		if _, err := cms.Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}

	var running sync.WaitGroup
	defer running.Wait() // every goroutine started below has returned
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf := informer.NewSharedIndexInformer(cms, ctrltest.ExampleCM(), 0, nil, informer.WithLogger(ctrltest.Quiet))
	running.Go(func() { inf.Run(ctx) })
	lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), ctrltest.CMGVR.GroupResource())

	seen := make(chan string)
	reconciler := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		// Step 9 (get object for key): the Request is only a key.
		cm, err := lister.Namespace(req.Namespace).Get(req.Name)
		if apierrors.IsNotFound(err) {
			seen <- req.String() + ": gone, nothing to do"
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		color, _, _ := unstructured.NestedString(cm.Object, "data", "color")
		seen <- fmt.Sprintf("%s: color is %s", req, color)
		return controller.Result{}, nil
	})
	c, err := controller.New("configmaps", reconciler, controller.Options{Logger: ctrltest.Quiet})
	if err != nil {
		panic(err)
	}
	if err := c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{})); err != nil {
		panic(err)
	}
	running.Go(func() { _ = c.Start(ctx) })

	initial := []string{<-seen, <-seen} // the initial list, in no particular order
	slices.Sort(initial)
	fmt.Println(initial[0])
	fmt.Println(initial[1])
	if err := cms.Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	fmt.Println(<-seen)

	// Output:
	// demo/a: color is blue
	// demo/b: color is blue
	// demo/a: gone, nothing to do
}
