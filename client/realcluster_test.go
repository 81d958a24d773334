package client_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestRealClusterListWatchCreate runs the client against a real API server when
// INFORMERLAB_KUBECONFIG names a kubeconfig (use a disposable cluster: it creates and
// deletes one ConfigMap in the context's namespace, or default). It lists, watches from
// the list's resourceVersion, creates a ConfigMap, sees it arrive through the watch, and
// stops the watch cleanly. docs/client.md says how to start a kind or minikube cluster.
// Diagram: step 1. client-go: rest.RESTClient against kube-apiserver.
func TestRealClusterListWatchCreate(t *testing.T) {
	path := os.Getenv("INFORMERLAB_KUBECONFIG")
	if path == "" {
		t.Skip("INFORMERLAB_KUBECONFIG is not set; set it to a disposable cluster's kubeconfig to run this test")
	}
	cfg, err := client.LoadKubeconfig(path)
	require.NoError(t, err)
	c, err := client.New(cfg, newScheme())
	require.NoError(t, err)
	ns := cfg.Namespace
	if ns == "" {
		ns = "default"
	}
	cms := c.Resource(configMaps).Namespace(ns)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	list, err := cms.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	listRV := list.(*ConfigMapList).ResourceVersion
	require.NotEmpty(t, listRV)
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: listRV, AllowWatchBookmarks: true})
	require.NoError(t, err)
	created, err := cms.Create(ctx, &ConfigMap{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "informerlab-client-test-"},
		Data:       map[string]string{"made-by": "informerlab client test"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	name := created.(*ConfigMap).Name
	t.Cleanup(func() {
		_ = cms.Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	var seen *ConfigMap
	for seen == nil {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "the watch ended before the create was seen")
			require.NotEqual(t, watch.Error, ev.Type, "error event: %v", ev.Object)
			if cm, isCM := ev.Object.(*ConfigMap); isCM && ev.Type == watch.Added && cm.Name == name {
				seen = cm
			}
		case <-ctx.Done():
			t.Fatal("the created ConfigMap never arrived through the watch")
		}
	}
	w.Stop()
	rest := drain(t, w)

	assert.Equal(t, "informerlab client test", seen.Data["made-by"])
	assert.Equal(t, created.(*ConfigMap).ResourceVersion, seen.ResourceVersion)
	for _, ev := range rest {
		assert.NotEqual(t, watch.Error, ev.Type, "no error after a requested stop")
	}
}
