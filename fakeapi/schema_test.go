package fakeapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

// Gadget is a typed test kind with nested lists, maps and a timestamp, for
// the schema checks.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec `json:"spec"`
}

type GadgetSpec struct {
	Replicas *int32            `json:"replicas,omitempty"`
	Parts    []GadgetPart      `json:"parts,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Since    *metav1.Time      `json:"since,omitempty"`
	Extra    any               `json:"extra,omitempty"`
}

type GadgetPart struct {
	Name  string  `json:"name"`
	Count int64   `json:"count"`
	Ratio float64 `json:"ratio,omitempty"`
}

type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

func (g *Gadget) DeepCopyObject() runtime.Object { c := *g; return &c }

func (l *GadgetList) DeepCopyObject() runtime.Object { c := *l; return &c }

var typedGadgets = schema.GroupVersionResource{Group: "demo.informerlab.io", Version: "v1", Resource: "gadgets"}

func gadgetServer(t *testing.T) *fakeapi.Server {
	t.Helper()
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(typedGadgets.GroupVersion(), &Gadget{}, &GadgetList{})
	s := newServer(t, fakeapi.Options{Scheme: scheme})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: typedGadgets, Kind: "Gadget", Namespaced: true, HasStatus: true}))
	return s
}

func newGadget(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.informerlab.io/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     spec,
	}}
}

// TestSchemaRefusesFieldsOfTheWrongType checks that an object whose fields
// do not have the JSON types of the kind's registered Go type is refused
// with 422 Invalid, one cause per field, with the real server's words, and
// that well-typed objects (nulls, unknown fields and free-form fields
// included) pass.
// Diagram: API. client-go: none (kube-apiserver's OpenAPI schema validation; apierrors.IsInvalid).
func TestSchemaRefusesFieldsOfTheWrongType(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec map[string]any
		want []string // the causes, "field: message"
	}{
		{"string for an integer", map[string]any{"replicas": "three"},
			[]string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"fraction for an integer", map[string]any{"replicas": 1.5},
			[]string{`spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"`}},
		{"out of range", map[string]any{"replicas": int64(3000000000)},
			[]string{`spec.replicas: Invalid value: 3000000000: spec.replicas in body must be of type int32: "3000000000"`}},
		{"in a list, two errors", map[string]any{"parts": []any{
			map[string]any{"name": "a", "count": int64(1)},
			map[string]any{"name": int64(7), "count": "many"},
		}}, []string{
			`spec.parts[1].name: Invalid value: "integer": spec.parts[1].name in body must be of type string: "integer"`,
			`spec.parts[1].count: Invalid value: "string": spec.parts[1].count in body must be of type integer: "string"`,
		}},
		{"a list for an object", map[string]any{"labels": []any{"a"}},
			[]string{`spec.labels: Invalid value: "array": spec.labels in body must be of type object: "array"`}},
		{"in a map", map[string]any{"labels": map[string]any{"tier": true}},
			[]string{`spec.labels[tier]: Invalid value: "boolean": spec.labels[tier] in body must be of type string: "boolean"`}},
		{"not a timestamp", map[string]any{"since": int64(12)},
			[]string{`spec.since: Invalid value: "integer": spec.since in body is not valid`}},
		{"well typed", map[string]any{"replicas": int64(2), "parts": []any{map[string]any{"name": "a", "count": int64(1), "ratio": int64(1)}},
			"labels": map[string]any{"tier": "web"}, "since": "2026-01-02T03:04:05Z", "extra": []any{"anything", int64(1)},
			"unknown": "kept", "replicasNull": nil}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := gadgetServer(t)
			gs := s.Resource(typedGadgets).Namespace("default")

			_, err := gs.Create(context.Background(), newGadget("g", tc.spec), metav1.CreateOptions{})

			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, apierrors.IsInvalid(err), "got %v", err)
			var causes []string
			for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
				causes = append(causes, c.Field+": "+c.Message)
			}
			require.Len(t, causes, len(tc.want), "causes: %v", causes)
			for i, want := range tc.want {
				assert.Contains(t, causes[i], want)
				assert.Contains(t, err.Error(), want)
			}
			assert.Contains(t, err.Error(), `Gadget.demo.informerlab.io "g" is invalid`)
			assert.Equal(t, uint64(1), s.CurrentResourceVersion(), "nothing was stored")
		})
	}
}

// TestSchemaChecksEveryWrite checks that update, merge patch, JSON patch
// and /status are refused like create when they leave a field of the wrong
// type: the stored object and its resourceVersion stay, and no watch event
// goes out.
// Diagram: API (before step 1: a bad object never reaches an informer). client-go: none.
func TestSchemaChecksEveryWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := widgetServer(t)
		ws := s.Resource(widgets).Namespace("default")
		out, err := ws.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: WidgetSpec{Size: 1}}, metav1.CreateOptions{})
		require.NoError(t, err)
		rv := out.(*Widget).ResourceVersion
		w, err := ws.Watch(t.Context(), metav1.ListOptions{ResourceVersion: rv})
		require.NoError(t, err)
		defer w.Stop()
		widget := func(field string, value any) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "demo.informerlab.io/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w", "namespace": "default", "resourceVersion": rv},
				"spec":     map[string]any{"size": int64(1)},
				field:      value,
			}}
		}
		badSpec := widget("spec", map[string]any{"size": "big"})
		badStatus := widget("status", map[string]any{"ready": "yes"})

		_, errUpdate := ws.Update(ctx, badSpec, metav1.UpdateOptions{})
		_, errMerge := ws.Patch(ctx, "w", types.MergePatchType, []byte(`{"spec":{"size":"big"}}`), metav1.PatchOptions{})
		_, errJSON := ws.Patch(ctx, "w", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":[1]}]`), metav1.PatchOptions{})
		_, errStatus := ws.UpdateStatus(ctx, badStatus, metav1.UpdateOptions{})

		for name, err := range map[string]error{"update": errUpdate, "merge patch": errMerge, "json patch": errJSON, "status": errStatus} {
			assert.True(t, apierrors.IsInvalid(err), "%s: got %v", name, err)
		}
		assert.Contains(t, errUpdate.Error(), `spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`)
		assert.Contains(t, errJSON.Error(), `spec.size in body must be of type integer: "array"`)
		assert.Contains(t, errStatus.Error(), `status.ready in body must be of type boolean: "string"`)
		now, err := ws.Get(ctx, "w", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, rv, now.(*Widget).ResourceVersion, "nothing was stored")
		expectQuiet(t, w)
	})
}

// TestHTTPSchemaRefusesFieldsOfTheWrongType is the same over HTTP: POST,
// PUT and PATCH of a field of the wrong type answer 422 with a Status
// whose causes name the field, and store nothing.
// Diagram: API. client-go: none (kubectl sees the same 422 from a real server).
func TestHTTPSchemaRefusesFieldsOfTheWrongType(t *testing.T) {
	s := widgetServer(t)
	ts := httpServer(t, s)
	const path = "/apis/demo.informerlab.io/v1/namespaces/default/widgets"
	const body = `{"apiVersion":"demo.informerlab.io/v1","kind":"Widget","metadata":{"name":"w"%s},"spec":{"size":%s}}`
	resp, data := do(t, ts, "POST", path, fmt.Sprintf(body, "", "1"))
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	rv := objRV(asMap(t, data))

	for _, req := range []struct{ method, path, body, contentType string }{
		{"POST", path, fmt.Sprintf(body, "", `"three"`), "application/json"},
		{"PUT", path + "/w", fmt.Sprintf(body, `,"resourceVersion":"`+rv+`"`, `"three"`), "application/json"},
		{"PATCH", path + "/w", `{"spec":{"size":"three"}}`, "application/merge-patch+json"},
	} {
		resp, data := do(t, ts, req.method, req.path, req.body, "Content-Type", req.contentType)

		st := requireStatus(t, resp, data, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		assert.Equal(t, `Widget.demo.informerlab.io "w" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`, st.Message, req.method)
		require.Len(t, st.Details.Causes, 1, req.method)
		assert.Equal(t, "spec.size", st.Details.Causes[0].Field)
		assert.Equal(t, metav1.CauseTypeFieldValueInvalid, st.Details.Causes[0].Type)
	}
	assert.Equal(t, rv, objRV(asMap(t, func() []byte { _, d := do(t, ts, "GET", path+"/w", ""); return d }())))
}
