package controller_test

import (
	"context"
	"maps"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
)

// Both packages' resource handles are ResourceInterfaces as they are.
var (
	_ controller.ResourceInterface = (*fakeapi.ResourceClient)(nil)
	_ controller.ResourceInterface = (*client.ResourceClient)(nil)
	// A Finalizer writes through the Client as it is.
	_ = controller.Finalizer{Update: (*controller.Client)(nil).Update}
)

// Widget is a typed kind, registered in a scheme like a CRD's Go type.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size  int               `json:"size"`
	Color string            `json:"color,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
}

type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (w *Widget) DeepCopy() *Widget {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Tags = maps.Clone(w.Spec.Tags)
	return &c
}

func (w *Widget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

func (l *WidgetList) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopy()
	}
	return &c
}

var (
	widgetsGVR = schema.GroupVersionResource{Group: "demo.informerlab.io", Version: "v1", Resource: "widgets"}
	widgetGVK  = widgetsGVR.GroupVersion().WithKind("Widget")
	cmGVK      = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	leasesGVR  = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	leaseGVK   = leasesGVR.GroupVersion().WithKind("Lease")
)

// widgetScheme knows Widget and WidgetList.
func widgetScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(widgetsGVR.GroupVersion(), &Widget{}, &WidgetList{})
	return s
}

// widgetMapper says widgets serve Widget, as discovery would.
func widgetMapper() controller.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(widgetGVK, meta.RESTScopeNamespace)
	return m
}

// countingAPI is the API a Manager talks to, counting every request by
// verb and resource ("get configmaps"), so tests can tell what reached the
// server.
type countingAPI struct {
	srv *fakeapi.Server

	mu    sync.Mutex // guards calls
	calls map[string]int
}

func newCountingAPI(srv *fakeapi.Server) *countingAPI {
	return &countingAPI{srv: srv, calls: map[string]int{}}
}

func (a *countingAPI) newClient(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
	return countedResource{a: a, resource: gvr.Resource, inner: a.srv.Resource(gvr).Namespace(ns)}
}

func (a *countingAPI) count(verb, resource string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls[verb+" "+resource]++
}

// snapshot returns the counts so far.
func (a *countingAPI) snapshot() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.calls)
}

type countedResource struct {
	a        *countingAPI
	resource string
	inner    *fakeapi.ResourceClient
}

func (r countedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	r.a.count("list", r.resource)
	return r.inner.List(ctx, opts)
}

func (r countedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r.a.count("watch", r.resource)
	return r.inner.Watch(ctx, opts)
}

func (r countedResource) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	r.a.count("get", r.resource)
	return r.inner.Get(ctx, name, opts)
}

func (r countedResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	r.a.count("create", r.resource)
	return r.inner.Create(ctx, obj, opts)
}

func (r countedResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.a.count("update", r.resource)
	return r.inner.Update(ctx, obj, opts)
}

func (r countedResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.a.count("update/status", r.resource)
	return r.inner.UpdateStatus(ctx, obj, opts)
}

func (r countedResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	r.a.count("patch", r.resource)
	return r.inner.Patch(ctx, name, pt, data, opts)
}

func (r countedResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	r.a.count("delete", r.resource)
	return r.inner.Delete(ctx, name, opts)
}

// newClientManager returns a Manager whose informers, writes and Events all
// go through api. It knows ConfigMaps (an informer) unless opts says more.
func newClientManager(t *testing.T, api *countingAPI, opts controller.ManagerOptions) *controller.Manager {
	t.Helper()
	opts.NewClient = api.newClient
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	m, err := controller.NewManager(opts)
	require.NoError(t, err)
	_, err = m.GetInformer(cmGVR, exampleCM())
	require.NoError(t, err)
	return m
}

// cmWith returns ConfigMap ns/name with data.
func cmWith(ns, name string, data map[string]any) *unstructured.Unstructured {
	u := newCM(ns, name)
	if data != nil {
		u.Object["data"] = data
	}
	return u
}

// data returns a ConfigMap's data.
func data(t *testing.T, u *unstructured.Unstructured) map[string]string {
	t.Helper()
	d, _, err := unstructured.NestedStringMap(u.Object, "data")
	require.NoError(t, err)
	return d
}

// key names ns/name.
func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}
