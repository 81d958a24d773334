package world

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
)

// ConfigMaps is the resource every suite watches.
var ConfigMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// World is a fakeapi server and two clients of its ConfigMaps in "ns".
type World struct {
	Srv *fakeapi.Server
	// CMs writes with watch events; Silent without (only a relist sees
	// its writes).
	CMs, Silent *fakeapi.ResourceClient
}

// New returns a server holding the named ConfigMaps. Call it inside the
// behaviour's synctest bubble; the server is closed when t ends.
func New(t *testing.T, names ...string) *World {
	t.Helper()
	return NewWith(t, fakeapi.Options{}, names...)
}

// NewWith is New with a server of opts.
func NewWith(t *testing.T, opts fakeapi.Options, names ...string) *World {
	t.Helper()
	srv := fakeapi.New(opts)
	t.Cleanup(srv.Close)
	w := &World{
		Srv:    srv,
		CMs:    srv.Resource(ConfigMaps).Namespace("ns"),
		Silent: srv.SilentResource(ConfigMaps).Namespace("ns"),
	}
	for _, name := range names {
		w.Create(t, name)
	}
	return w
}

// Create creates ConfigMap ns/name.
func (w *World) Create(t *testing.T, name string) {
	t.Helper()
	_, err := w.CMs.Create(context.Background(), ConfigMap("ns", name), metav1.CreateOptions{})
	require.NoError(t, err)
}

// RV is the server's current resourceVersion.
func (w *World) RV() string { return fmt.Sprint(w.Srv.CurrentResourceVersion()) }

// View is name → resourceVersion of every ConfigMap in "ns".
func (w *World) View(t *testing.T) map[string]string {
	t.Helper()
	list, err := w.CMs.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, ok := list.(*unstructured.UnstructuredList)
	require.True(t, ok, "list is %T", list)
	view := map[string]string{}
	for _, item := range items.Items {
		view[item.GetName()] = item.GetResourceVersion()
	}
	return view
}

// ConfigMap returns an empty ConfigMap.
func ConfigMap(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// Advance lets d pass on the bubble's fake clock and waits until every
// goroutine of the bubble is blocked.
func Advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// NameRV returns an object's name and resourceVersion ("<T>" and "" for
// something that is not an object).
func NameRV(obj any) (string, string) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return fmt.Sprintf("<%T>", obj), ""
	}
	return m.GetName(), m.GetResourceVersion()
}
