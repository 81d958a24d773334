package controller_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
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
	cms := srv.Resource(cmGVR).Namespace("demo")
	if _, err := cms.Create(context.Background(), newCM("demo", "settings"), metav1.CreateOptions{}); err != nil {
		panic(err)
	}

	mgr, err := controller.NewManager(controller.ManagerOptions{
		NewListerWatcher: func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return srv.Resource(gvr).Namespace(ns)
		},
		Logger: quiet,
	})
	if err != nil {
		panic(err)
	}
	seen := make(chan controller.Request, 1)
	err = controller.NewBuilder(mgr).
		For(cmGVR, exampleCM()).
		WithOptions(controller.Options{Logger: quiet}).
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
