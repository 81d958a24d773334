package manager_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/fakeapi"
)

// ExampleManager_GetClient reconciles with the Manager's services: the
// split client reads the object from the cache and patches it on the API
// server, waits until the cache has seen the patch, and an Event records
// what was done. Stopping the Manager flushes the Event.
func ExampleManager_GetClient() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := srv.Resource(ctrltest.CMGVR).Namespace("demo")
	if _, err := cms.Create(context.Background(), ctrltest.NewCM("demo", "settings"), metav1.CreateOptions{}); err != nil {
		panic(err)
	}
	mgr, err := manager.New(manager.Options{
		NewClient: func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
			return srv.Resource(gvr).Namespace(ns)
		},
		Logger: ctrltest.Quiet,
	})
	if err != nil {
		panic(err)
	}
	c := mgr.GetClient()
	events := mgr.GetEventRecorderFor("settings-controller")
	done := make(chan string, 1)
	err = builder.New(mgr).
		For(ctrltest.CMGVR, ctrltest.ExampleCM()).
		WithOptions(controller.Options{Logger: ctrltest.Quiet}).
		Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			cm := ctrltest.ExampleCM()
			if err := c.Get(ctx, req.NamespacedName, cm); err != nil { // from the cache: a copy
				return controller.Result{}, manager.IgnoreNotFound(err)
			}
			if cm.GetLabels()["checked"] == "yes" {
				return controller.Result{}, nil // already as it should be
			}
			original := cm.DeepCopy()
			cm.SetLabels(map[string]string{"checked": "yes"})
			if err := c.Patch(ctx, cm, manager.MergeFrom(original)); err != nil { // to the API server
				return controller.Result{}, err
			}
			if err := c.WaitForResourceVersion(ctx, cm); err != nil { // until the cache has the patch
				return controller.Result{}, err
			}
			events.Event(cm, recorder.EventTypeNormal, "Checked", "labelled checked=yes")
			again := ctrltest.ExampleCM()
			if err := c.Get(ctx, req.NamespacedName, again); err != nil {
				return controller.Result{}, err
			}
			done <- "the cache now shows checked=" + again.GetLabels()["checked"]
			return controller.Result{}, nil
		}))
	if err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- mgr.Start(ctx) }()
	fmt.Println("reconciled:", <-done)
	cancel()
	fmt.Println("manager stopped, error:", <-stopped)
	evs, err := srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace("demo").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, ev := range evs.(*unstructured.UnstructuredList).Items {
		kind, _, _ := unstructured.NestedString(ev.Object, "involvedObject", "kind")
		name, _, _ := unstructured.NestedString(ev.Object, "involvedObject", "name")
		reason, _, _ := unstructured.NestedString(ev.Object, "reason")
		message, _, _ := unstructured.NestedString(ev.Object, "message")
		count, _, _ := unstructured.NestedInt64(ev.Object, "count")
		fmt.Printf("event: %s %s/%s %s %q, count %d\n", kind, ev.GetNamespace(), name, reason, message, count)
	}

	// Output:
	// reconciled: the cache now shows checked=yes
	// manager stopped, error: <nil>
	// event: ConfigMap demo/settings Checked "labelled checked=yes", count 1
}
