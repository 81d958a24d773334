package recorder_test

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/fakeapi"
)

// A Reconciler records the same Event three times and another once; the
// broadcaster writes two Event objects, the first with count 3. Here it
// writes them when its context ends (the flush on shutdown); running, it
// writes them from its goroutine as they come.
func Example() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	b, err := recorder.NewEventBroadcaster(recorder.EventBroadcasterOptions{
		NewClient: func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
			return srv.Resource(gvr).Namespace(ns)
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	foo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
		"metadata": map[string]any{"name": "web", "namespace": "demo", "uid": "1234"},
	}}
	rec := b.NewRecorder("foo-controller")
	for range 3 {
		rec.Event(foo, recorder.EventTypeNormal, "Synced", "Foo synced successfully")
	}
	rec.Eventf(foo, recorder.EventTypeWarning, "ErrResourceExists", "Resource %q already exists and is not managed by Foo", "web")

	ctx, stop := context.WithCancel(context.Background())
	stop()
	_ = b.Start(ctx) // flushes what is buffered, then returns

	list, err := srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace("demo").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, ev := range list.(*unstructured.UnstructuredList).Items {
		count, _, _ := unstructured.NestedInt64(ev.Object, "count")
		kind, _, _ := unstructured.NestedString(ev.Object, "involvedObject", "kind")
		fmt.Printf("%s %s on %s demo/web, count %d: %s\n", ev.Object["type"], ev.Object["reason"], kind, count, ev.Object["message"])
	}
	fmt.Printf("%+v\n", b.Stats())
	// Unordered output:
	// Normal Synced on Foo demo/web, count 3: Foo synced successfully
	// Warning ErrResourceExists on Foo demo/web, count 1: Resource "web" already exists and is not managed by Foo
	// {Recorded:4 Dropped:0 Written:4 Failed:0 Pending:0}
}
