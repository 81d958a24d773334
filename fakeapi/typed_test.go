package fakeapi_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
)

// Widget is a typed test kind, registered in a scheme like a demo's CRD type.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size int `json:"size"`
}

type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (l *WidgetList) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &c
}

var widgets = schema.GroupVersionResource{Group: "demo.informerlab.io", Version: "v1", Resource: "widgets"}

func widgetServer(t *testing.T) *fakeapi.Server {
	t.Helper()
	scheme := runtime.NewScheme()
	gv := widgets.GroupVersion()
	scheme.AddKnownTypes(gv, &Widget{}, &WidgetList{})
	s := newServer(t, fakeapi.Options{Scheme: scheme})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget", Namespaced: true, HasStatus: true}))
	return s
}

// TestSchemeKindsComeBackTyped checks that a kind registered in the scheme
// is returned as its Go type by Create, Get, List and Watch, and that typed
// and unstructured inputs are interchangeable.
// Diagram: step 1. client-go: typed clientsets versus the dynamic client.
func TestSchemeKindsComeBackTyped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := widgetServer(t)
		ws := s.Resource(widgets).Namespace("default")
		w, err := ws.Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		defer w.Stop()

		created, err := ws.Create(t.Context(), &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Spec: WidgetSpec{Size: 3}}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = ws.Create(t.Context(), &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "demo.informerlab.io/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w2"}, "spec": map[string]any{"size": 5}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		got, err := ws.Get(t.Context(), "w2", metav1.GetOptions{})
		require.NoError(t, err)
		list, err := ws.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)

		cw := created.(*Widget)
		assert.Equal(t, 3, cw.Spec.Size)
		assert.Equal(t, "Widget", cw.Kind)
		assert.NotEmpty(t, cw.UID)
		assert.Equal(t, 5, got.(*Widget).Spec.Size)
		wl, ok := list.(*WidgetList)
		require.True(t, ok, "got %T", list)
		assert.Equal(t, "3", wl.ResourceVersion)
		items, err := meta.ExtractList(wl)
		require.NoError(t, err)
		assert.Len(t, items, 2)
		ev := next(t, w)
		assert.IsType(t, &Widget{}, ev.Object)
	})
}

// TestTypedStatusSubresource checks that create ignores status and
// UpdateStatus changes only status, on a typed resource.
// Diagram: step 9 (controllers write status). client-go: UpdateStatus.
func TestTypedStatusSubresource(t *testing.T) {
	s := widgetServer(t)
	ws := s.Resource(widgets).Namespace("default")
	created, err := ws.Create(context.Background(), &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Status: WidgetStatus{Ready: true}}, metav1.CreateOptions{})
	require.NoError(t, err)
	w := created.(*Widget)
	assert.False(t, w.Status.Ready, "create ignores status when there is a status subresource")
	w.Status.Ready = true
	w.Spec.Size = 9

	out, err := ws.UpdateStatus(context.Background(), w, metav1.UpdateOptions{})
	require.NoError(t, err)

	assert.True(t, out.(*Widget).Status.Ready)
	assert.Equal(t, 0, out.(*Widget).Spec.Size, "/status ignores spec")
	assert.Equal(t, int64(1), out.(*Widget).Generation)
}
