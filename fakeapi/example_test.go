package fakeapi_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

func exampleConfigMap(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name},
		"data":     map[string]any{"color": "blue"},
	}}
}

// The List & Watch contract a Reflector relies on: list at a
// resourceVersion, watch from it, and relist when the server says the
// resourceVersion is too old.
func Example() {
	s := fakeapi.New(fakeapi.Options{})
	defer s.Close()
	ctx := context.Background()
	cms := s.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")

	// Every write takes the next value of one global resourceVersion.
	for _, name := range []string{"a", "b"} {
		if _, err := cms.Create(ctx, exampleConfigMap(name), metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}

	// Step 1, List: a snapshot and the resourceVersion it was taken at.
	list, _ := cms.List(ctx, metav1.ListOptions{})
	lm, _ := meta.ListAccessor(list)
	items, _ := meta.ExtractList(list)
	fmt.Println("listed", len(items), "objects at resourceVersion", lm.GetResourceVersion())

	// Step 1, Watch: every change after that resourceVersion.
	w, _ := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.GetResourceVersion()})
	_, _ = cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"color":"red"}}`), metav1.PatchOptions{})
	ev := <-w.ResultChan()
	obj := ev.Object.(*unstructured.Unstructured)
	fmt.Println(ev.Type, obj.GetName(), "at resourceVersion", obj.GetResourceVersion())
	w.Stop()

	// A fault: history is compacted, so re-watching from the old
	// resourceVersion fails with 410 Expired and the client must relist.
	s.Compact()
	w, _ = cms.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.GetResourceVersion()})
	ev = <-w.ResultChan()
	st := ev.Object.(*metav1.Status)
	fmt.Println(ev.Type, st.Code, st.Reason, st.Message)
	fmt.Println("compactions:", s.Faults().Compactions)

	// Output:
	// listed 2 objects at resourceVersion 3
	// MODIFIED a at resourceVersion 4
	// ERROR 410 Expired too old resource version: 3 (5)
	// compactions: 1
}

// The same server over HTTP, as kubectl or client-go see it: a list whose
// items carry no kind, and a watch streaming one JSON event per line.
func ExampleServer_Handler() {
	s := fakeapi.New(fakeapi.Options{})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	defer s.Close() // ends open watches first, so ts.Close does not wait for them
	cms := s.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	_, _ = cms.Create(context.Background(), exampleConfigMap("a"), metav1.CreateOptions{})

	resp, err := http.Get(ts.URL + "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Da")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"kind":"ConfigMapList"`), strings.Contains(string(body), `"items":[{"data"`))

	resp, err = http.Get(ts.URL + "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"), line[:len(`{"type":"ADDED","object":{`)])

	// Output:
	// 200 true true
	// 200 application/json {"type":"ADDED","object":{
}

// A silent write changes storage without a watch event: only a relist
// reveals it.
func ExampleServer_SilentResource() {
	s := fakeapi.New(fakeapi.Options{})
	defer s.Close()
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cms := s.Resource(gvr).Namespace("default")
	_, _ = cms.Create(ctx, exampleConfigMap("a"), metav1.CreateOptions{})

	w, _ := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
	defer w.Stop()
	_ = s.SilentResource(gvr).Namespace("default").Delete(ctx, "a", metav1.DeleteOptions{}) // resourceVersion 3, no event
	_, _ = cms.Create(ctx, exampleConfigMap("b"), metav1.CreateOptions{})                   // resourceVersion 4
	ev := <-w.ResultChan()
	obj := ev.Object.(*unstructured.Unstructured)
	fmt.Println("the watch's next event:", ev.Type, obj.GetName(), obj.GetResourceVersion())

	list, _ := cms.List(ctx, metav1.ListOptions{})
	for _, it := range list.(*unstructured.UnstructuredList).Items {
		fmt.Println("a relist finds:", it.GetName())
	}
	fmt.Println("silent writes:", s.Faults().SilentWrites)

	// Output:
	// the watch's next event: ADDED b 4
	// a relist finds: b
	// silent writes: 1
}
