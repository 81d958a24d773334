package builder_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// ExampleBuilder runs a controller the controller-runtime way: a Manager
// owns the shared cache, the Builder wires For's Kind source to the
// Manager's informer, and Start runs cache, then controller, until the
// context ends.
func ExampleBuilder() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := srv.Resource(ctrltest.CMGVR).Namespace("demo")
	if _, err := cms.Create(context.Background(), ctrltest.NewCM("demo", "settings"), metav1.CreateOptions{}); err != nil {
		panic(err)
	}

	mgr, err := manager.New(manager.Options{
		NewListerWatcher: func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return srv.Resource(gvr).Namespace(ns)
		},
		Logger: ctrltest.Quiet,
	})
	if err != nil {
		panic(err)
	}
	seen := make(chan controller.Request, 1)
	err = builder.New(mgr).
		For(ctrltest.CMGVR, ctrltest.ExampleCM()).
		WithOptions(controller.Options{Logger: ctrltest.Quiet}).
		Complete(controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
			seen <- req
			return controller.Result{}, nil
		}))
	if err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- mgr.Start(ctx) }()
	fmt.Println("reconciled", <-seen)
	cancel()
	fmt.Println("manager stopped, error:", <-stopped)

	// Output:
	// reconciled demo/settings
	// manager stopped, error: <nil>
}
