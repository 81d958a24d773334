package samplecontroller_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// ExampleNew runs the sample controller on an in-process fakeapi and
// prints every write the Foo controller makes while one Foo is created,
// converges and is deleted. The Observer is how a narrator follows the
// controller; here it only passes on the Foo controller's successful API
// writes.
func ExampleNew() {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()}) // typed Foos and Deployments
	defer srv.Close()
	if err := sc.Register(srv); err != nil {
		panic(err)
	}
	writes := make(chan string, 100)
	c, err := sc.New(
		func(gvr schema.GroupVersionResource, ns string) sc.Resource { return srv.Resource(gvr).Namespace(ns) },
		sc.Options{
			DeploymentSimulator: true, // fakeapi has no kube-controller-manager
			Logger:              quiet,
			Observer: func(e sc.Event) {
				if e.Step == sc.StepAPIWrite && e.Controller == sc.FooControllerName && e.Err == nil {
					writes <- e.String()
				}
			},
		})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- c.Run(ctx) }()

	foos := srv.Resource(sc.FoosGVR).Namespace("demo")
	foo := &sc.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
		Spec:       sc.FooSpec{DeploymentName: "web", Replicas: int32p(2)},
	}
	if _, err := foos.Create(ctx, foo, metav1.CreateOptions{}); err != nil {
		panic(err)
	}
	for range 4 { // finalizer, Deployment, status "progressing", status "available"
		fmt.Println(<-writes)
	}
	if err := foos.Delete(ctx, "example", metav1.DeleteOptions{}); err != nil {
		panic(err)
	}
	for range 2 { // the finalizer's cleanup, then the finalizer's removal
		fmt.Println(<-writes)
	}
	cancel()
	fmt.Println("stopped:", <-stopped)

	// Output:
	// [api] foo: patch foos demo/example: add finalizer samplecontroller.k8s.io/cleanup
	// [api] foo: create deployments demo/web: replicas 2, controlled by foo example
	// [api] foo: update status foos demo/example: availableReplicas 0, Ready=False (Progressing)
	// [api] foo: update status foos demo/example: availableReplicas 2, Ready=True (Available)
	// [api] foo: delete deployments demo/web: cleanup by finalizer samplecontroller.k8s.io/cleanup
	// [api] foo: patch foos demo/example: remove finalizer samplecontroller.k8s.io/cleanup
	// stopped: <nil>
}
