package controlplane_test

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane"
)

// Start a real kube-apiserver and etcd, connect with the kubeconfig it
// writes, and write and read an object. The first run on a machine builds
// both binaries (minutes); afterwards Start takes a few seconds.
func Example() {
	ctx := context.Background()
	cp, err := controlplane.Start(ctx, controlplane.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer cp.Stop()

	// The kubeconfig holds the server, its certificate and a token.
	cfg, err := client.LoadKubeconfig(cp.KubeconfigPath)
	if err != nil {
		panic(err)
	}
	c, err := client.New(cfg, nil) // nil scheme: unstructured objects
	if err != nil {
		panic(err)
	}

	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName("example")
	if _, err := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		panic(err)
	}
	cms := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("example")
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetName("greeting")
	if err := unstructured.SetNestedField(cm.Object, "hello from kube-apiserver "+controlplane.KubernetesVersion, "data", "text"); err != nil {
		panic(err)
	}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		panic(err)
	}

	got, err := cms.Get(ctx, "greeting", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	u := got.(*unstructured.Unstructured)
	text, _, _ := unstructured.NestedString(u.Object, "data", "text")
	fmt.Println(u.GetKind(), u.GetNamespace()+"/"+u.GetName()+":", text)
	fmt.Println("has a resourceVersion:", u.GetResourceVersion() != "")

	// Output:
	// ConfigMap example/greeting: hello from kube-apiserver v1.37.2
	// has a resourceVersion: true
}
