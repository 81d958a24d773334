package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/informerlab/informerlab/client"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Example lists and then watches ConfigMaps over HTTP: step 1 of the diagram, as the
// Reflector does it. A small httptest server plays the API server and answers in the
// wire format: list items without kind, one JSON event per line on the watch.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Query().Get("watch") == "true":
			fmt.Fprintln(w, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"demo","resourceVersion":"8"}}}`)
			fmt.Fprintln(w, `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}`)
		case r.URL.Path == "/api/v1/namespaces/demo/configmaps":
			fmt.Fprintln(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","namespace":"demo","resourceVersion":"7"}}]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintln(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"configmaps \"x\" not found"}`)
		}
	}))
	defer srv.Close()

	cfg, err := client.ConfigFromURL(srv.URL) // or client.LoadKubeconfig(path) for a real cluster
	if err != nil {
		panic(err)
	}
	c, err := client.New(cfg, nil) // nil scheme: everything decodes unstructured
	if err != nil {
		panic(err)
	}
	cms := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("demo")
	ctx := context.Background()

	// Step 1 (list): the snapshot and its resourceVersion.
	list, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		panic(err)
	}
	listMeta, _ := meta.ListAccessor(list)
	items, _ := meta.ExtractList(list)
	fmt.Println("list at resourceVersion", listMeta.GetResourceVersion())
	for _, item := range items {
		m, _ := meta.Accessor(item)
		fmt.Printf("  %s %s/%s\n", item.GetObjectKind().GroupVersionKind().Kind, m.GetNamespace(), m.GetName())
	}

	// Step 1 (watch): every change after the snapshot, until the server ends the stream.
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: listMeta.GetResourceVersion(), AllowWatchBookmarks: true})
	if err != nil {
		panic(err)
	}
	for ev := range w.ResultChan() {
		m, _ := meta.Accessor(ev.Object)
		fmt.Printf("watch: %s %q at resourceVersion %s\n", ev.Type, m.GetName(), m.GetResourceVersion())
	}

	// Errors are API statuses.
	_, err = cms.Get(ctx, "x", metav1.GetOptions{})
	fmt.Println("get x: not found =", apierrors.IsNotFound(err))

	// Output:
	// list at resourceVersion 7
	//   ConfigMap demo/a
	// watch: ADDED "b" at resourceVersion 8
	// watch: BOOKMARK "" at resourceVersion 9
	// get x: not found = true
}
