package manager_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/fakeapi"
)

// TestClientAndEventsOverHTTP: the same Manager talks to fakeapi over HTTP
// by changing NewClient alone: cache reads, writes, the wait for the
// cache, and Events (created, then patched with a count) all go through
// the Kubernetes wire format, where kubectl get events would find them.
// Diagram: API, steps 1, 9. client-go: controller-runtime client over a REST config.
func TestClientAndEventsOverHTTP(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	httpSrv := httptest.NewServer(srv.Handler())
	t.Cleanup(httpSrv.Close)
	rest, err := client.New(&client.Config{Server: httpSrv.URL}, nil)
	require.NoError(t, err)
	m, err := manager.New(manager.Options{
		NewClient: func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
			return rest.Resource(gvr).Namespace(ns)
		},
		Logger: ctrltest.Quiet,
	})
	require.NoError(t, err)
	_, err = m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
	require.NoError(t, err)
	ctrltest.Create(t, srv, ctrltest.CMWith("a", "config", map[string]any{"k": "v1"}))
	rec := m.GetEventRecorderFor("foo-controller")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stop := ctrltest.RunManager(t, m)
	select {
	case <-m.Elected():
	case <-ctx.Done():
		t.Fatal("the Manager did not start within 30s")
	}
	c := m.GetClient()

	cm := ctrltest.ExampleCM()
	require.NoError(t, c.Get(ctx, ctrltest.Key("a", "config"), cm))
	original := cm.DeepCopy()
	cm.Object["data"] = map[string]any{"k": "v2"}
	require.NoError(t, c.Patch(ctx, cm, manager.MergeFrom(original)))
	require.NoError(t, c.WaitForResourceVersion(ctx, cm))
	fromCache := ctrltest.ExampleCM()
	require.NoError(t, c.Get(ctx, ctrltest.Key("a", "config"), fromCache))
	evWatch, err := srv.Resource(ctrltest.EventsGVR).Namespace("a").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer evWatch.Stop()
	rec.Event(cm, recorder.EventTypeNormal, "Patched", "k is v2")
	created := nextWatchEvent(ctx, t, evWatch)
	rec.Event(cm, recorder.EventTypeNormal, "Patched", "k is v2")
	counted := nextWatchEvent(ctx, t, evWatch)
	require.NoError(t, stop())
	t.Logf("over HTTP: the client patched a/config, waited for the cache and read back %v", ctrltest.Data(t, fromCache))
	t.Logf("   the event recorder's first call: %s, the repeat: %s", created, counted)

	assert.Equal(t, map[string]string{"k": "v2"}, ctrltest.Data(t, fromCache))
	assert.Equal(t, watch.Added, created, "the first call creates the Event")
	assert.Equal(t, watch.Modified, counted, "the repeat patches its count")
	evs, err := srv.Resource(ctrltest.EventsGVR).Namespace("a").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items := evs.(*unstructured.UnstructuredList).Items
	require.Len(t, items, 1)
	count, _, _ := unstructured.NestedInt64(items[0].Object, "count")
	assert.Equal(t, int64(2), count)
}

// nextWatchEvent returns the type of w's next event, failing the test if
// none comes before ctx ends.
func nextWatchEvent(ctx context.Context, t *testing.T, w watch.Interface) watch.EventType {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.True(t, ok, "the watch ended")
		return ev.Type
	case <-ctx.Done():
		t.Fatal("no watch event before the deadline")
		return ""
	}
}
