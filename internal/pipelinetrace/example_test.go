package pipelinetrace_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/pipelinetrace"
)

// A Stream taps a ListerWatcher: each LIST becomes a typed Event, handed to
// every sink before the Reflector gets the answer. The terminal narrator
// and the page are two such sinks.
func Example() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace("default")
	cm.SetName("hello")
	if _, err := srv.Resource(cms).Namespace("default").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		panic(err)
	}

	var events []pipelinetrace.Event
	stream := pipelinetrace.NewStream(func(e pipelinetrace.Event) { events = append(events, e) })
	lw := stream.ListerWatcher(srv.Resource(cms).Namespace("default"), "ConfigMap")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := lw.List(ctx, metav1.ListOptions{ResourceVersion: "0"}); err != nil {
		panic(err)
	}

	for _, e := range events {
		if e.What == pipelinetrace.ListDone {
			fmt.Printf("%s LIST from rv %q: %d object(s) at rv %s\n", e.Kind, e.RequestRV, e.Objects, e.RV)
		}
	}
	// Output: ConfigMap LIST from rv "0": 1 object(s) at rv 2
}
