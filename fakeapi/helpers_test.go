package fakeapi_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

var (
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	leases     = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
)

// configMap builds an unstructured ConfigMap; labels are "k", "v" pairs.
func configMap(ns, name string, labels ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"data":     map[string]any{"k": "v"},
	}}
	if len(labels) > 0 {
		l := map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			l[labels[i]] = labels[i+1]
		}
		u.SetLabels(l)
	}
	return u
}

// newServer returns a server closed at the end of the test, whose invariants
// are checked then.
func newServer(t *testing.T, opts fakeapi.Options) *fakeapi.Server {
	t.Helper()
	s := fakeapi.New(opts)
	t.Cleanup(func() {
		require.NoError(t, s.CheckInvariants())
		s.Close()
	})
	return s
}

func mustCreate(t *testing.T, c *fakeapi.ResourceClient, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	out, err := c.Create(context.Background(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}

func mustGet(t *testing.T, c *fakeapi.ResourceClient, name string) *unstructured.Unstructured {
	t.Helper()
	out, err := c.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}

// names lists the names in a list object, in order.
func names(t *testing.T, list runtime.Object) []string {
	t.Helper()
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	out := []string{}
	for _, it := range items {
		m, err := meta.Accessor(it)
		require.NoError(t, err)
		out = append(out, m.GetName())
	}
	return out
}

func listRV(t *testing.T, list runtime.Object) string {
	t.Helper()
	m, err := meta.ListAccessor(list)
	require.NoError(t, err)
	return m.GetResourceVersion()
}

// next receives the next event, failing after a minute of (bubble) time.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.True(t, ok, "watch ended, wanted an event")
		t.Logf("watch delivers %s", describeEvent(ev))
		return ev
	case <-time.After(time.Minute):
		t.Fatal("no watch event within a minute")
	}
	return watch.Event{}
}

// expectClosed checks the watch has ended (its channel closes with no
// further event within a minute of bubble time).
func expectClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		require.False(t, ok, "wanted the end of the watch, got %s %v", ev.Type, ev.Object)
		t.Log("watch ends")
	case <-time.After(time.Minute):
		t.Fatal("watch still open after a minute")
	}
}

// expectQuiet checks, inside a synctest bubble, that no event is pending.
func expectQuiet(t *testing.T, w watch.Interface) {
	t.Helper()
	synctest.Wait()
	select {
	case ev, ok := <-w.ResultChan():
		t.Fatalf("wanted no event, got %s %v (open=%v)", ev.Type, ev.Object, ok)
	default:
		t.Log("watch delivers nothing")
	}
}

// describeEvent renders an event for the test's log: "ADDED a@2", or an
// ERROR event with its status.
func describeEvent(ev watch.Event) string {
	if st, ok := ev.Object.(*metav1.Status); ok {
		return fmt.Sprintf("%s %d %s: %s", ev.Type, st.Code, st.Reason, st.Message)
	}
	return nameRV(ev)
}

// nameRV returns "type name@rv" for an event: compact assertions.
func nameRV(ev watch.Event) string {
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		return string(ev.Type) + " ?"
	}
	return string(ev.Type) + " " + m.GetName() + "@" + m.GetResourceVersion()
}
