package ctrltest

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

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
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
	WidgetsGVR = schema.GroupVersionResource{Group: "demo.informerlab.io", Version: "v1", Resource: "widgets"}
	WidgetGVK  = WidgetsGVR.GroupVersion().WithKind("Widget")
	CMGVK      = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	LeasesGVR  = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	LeaseGVK   = LeasesGVR.GroupVersion().WithKind("Lease")
)

// WidgetScheme knows Widget and WidgetList.
func WidgetScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(WidgetsGVR.GroupVersion(), &Widget{}, &WidgetList{})
	return s
}

// WidgetMapper says widgets serve Widget, as discovery would.
func WidgetMapper() manager.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(WidgetGVK, meta.RESTScopeNamespace)
	return m
}

// CountingAPI is the API a Manager talks to, counting every request by
// verb and resource ("get configmaps"), so tests can tell what reached the
// server.
type CountingAPI struct {
	srv *fakeapi.Server

	mu    sync.Mutex // guards calls
	Calls map[string]int
}

func NewCountingAPI(srv *fakeapi.Server) *CountingAPI {
	return &CountingAPI{srv: srv, Calls: map[string]int{}}
}

func (a *CountingAPI) NewClient(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface {
	return CountedResource{a: a, resource: gvr.Resource, inner: a.srv.Resource(gvr).Namespace(ns)}
}

func (a *CountingAPI) count(verb, resource string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Calls[verb+" "+resource]++
}

// Snapshot returns the counts so far.
func (a *CountingAPI) Snapshot() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.Calls)
}

type CountedResource struct {
	a        *CountingAPI
	resource string
	inner    *fakeapi.ResourceClient
}

func (r CountedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	r.a.count("list", r.resource)
	return r.inner.List(ctx, opts)
}

func (r CountedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r.a.count("watch", r.resource)
	return r.inner.Watch(ctx, opts)
}

func (r CountedResource) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	r.a.count("get", r.resource)
	return r.inner.Get(ctx, name, opts)
}

func (r CountedResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	r.a.count("create", r.resource)
	return r.inner.Create(ctx, obj, opts)
}

func (r CountedResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.a.count("update", r.resource)
	return r.inner.Update(ctx, obj, opts)
}

func (r CountedResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	r.a.count("update/status", r.resource)
	return r.inner.UpdateStatus(ctx, obj, opts)
}

func (r CountedResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	r.a.count("patch", r.resource)
	return r.inner.Patch(ctx, name, pt, data, opts)
}

func (r CountedResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	r.a.count("delete", r.resource)
	return r.inner.Delete(ctx, name, opts)
}

// NewClientManager returns a Manager whose informers, writes and Events all
// go through api. It knows ConfigMaps (an informer) unless opts says more.
func NewClientManager(t *testing.T, api *CountingAPI, opts manager.Options) *manager.Manager {
	t.Helper()
	opts.NewClient = api.NewClient
	if opts.Logger == nil {
		opts.Logger = Quiet
	}
	m, err := manager.New(opts)
	require.NoError(t, err)
	_, err = m.GetInformer(CMGVR, ExampleCM())
	require.NoError(t, err)
	return m
}

// CMWith returns ConfigMap ns/name with data.
func CMWith(ns, name string, data map[string]any) *unstructured.Unstructured {
	u := NewCM(ns, name)
	if data != nil {
		u.Object["data"] = data
	}
	return u
}

// Data returns a ConfigMap's data.
func Data(t *testing.T, u *unstructured.Unstructured) map[string]string {
	t.Helper()
	d, _, err := unstructured.NestedStringMap(u.Object, "data")
	require.NoError(t, err)
	return d
}

// Key names ns/name.
func Key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}
