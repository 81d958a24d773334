package fakeapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

const typoConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"typo","labelz":{"a":"b"}},"data":{"k":"v"},"datta":{"k":"v"}}`

// TestFieldValidationStrictRefusesUnknownFields: with fieldValidation=Strict
// (what kubectl create -f and apply -f send) a create naming fields the kind
// does not have fails with the real server's message, listing each field by
// its path, and nothing is stored; a correct object is created.
// Diagram: API. client-go: metav1.CreateOptions.FieldValidation (kubectl --validate=strict).
func TestFieldValidationStrictRefusesUnknownFields(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)

	resp, data := do(t, ts, "POST", cmPath+"?fieldValidation=Strict", typoConfigMap, "Content-Type", "application/json")
	ok, okData := do(t, ts, "POST", cmPath+"?fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fine"},"data":{"k":"v"}}`,
		"Content-Type", "application/json")

	st := requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	assert.Equal(t, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datta", unknown field "metadata.labelz"`, st.Message)
	assert.Equal(t, http.StatusCreated, ok.StatusCode, string(okData))
	_, err := s.Resource(configMaps).Namespace("default").Get(t.Context(), "typo", metav1.GetOptions{})
	assert.Error(t, err, "nothing stored")
}

// TestFieldValidationWarnIgnoreAndTheDefault: an unknown field is dropped
// in every mode, as the real server's decoding drops it. Warn, and a
// request without the parameter (Warn is the default), say so in a Warning
// header (kubectl prints it); Ignore says nothing; any other value is 422,
// as the real server validates its CreateOptions.
// Diagram: API. client-go: rest.WarningHandler (Warning headers).
func TestFieldValidationWarnIgnoreAndTheDefault(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	body := func(name string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"datta":{}}`
	}

	warn, _ := do(t, ts, "POST", cmPath+"?fieldValidation=Warn", body("w"), "Content-Type", "application/json")
	ignore, _ := do(t, ts, "POST", cmPath+"?fieldValidation=Ignore", body("i"), "Content-Type", "application/json")
	none, _ := do(t, ts, "POST", cmPath, body("n"), "Content-Type", "application/json")
	bad, badData := do(t, ts, "POST", cmPath+"?fieldValidation=Loud", body("b"), "Content-Type", "application/json")

	assert.Equal(t, http.StatusCreated, warn.StatusCode)
	assert.Equal(t, []string{`299 - "unknown field \"datta\""`}, warn.Header.Values("Warning"))
	assert.Equal(t, http.StatusCreated, ignore.StatusCode)
	assert.Empty(t, ignore.Header.Values("Warning"))
	assert.Equal(t, http.StatusCreated, none.StatusCode)
	assert.Equal(t, []string{`299 - "unknown field \"datta\""`}, none.Header.Values("Warning"))
	for _, name := range []string{"w", "i", "n"} {
		cm, err := s.Resource(configMaps).Namespace("default").Get(t.Context(), name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.NotContains(t, cm.(*unstructured.Unstructured).Object, "datta", "%s: the unknown field was dropped", name)
	}
	st := requireStatus(t, bad, badData, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	assert.Equal(t, `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"`, st.Message)
}

// TestFieldValidationOfPatchesAndUpdates: the object a merge or strategic
// merge patch produces is checked (strategic directives are not fields):
// under Strict an unknown field is 422 Invalid with the patched object as
// the invalid "patch" value, as on the real server; an update is checked
// like a create (400); elements of lists are named by index.
// Diagram: API. client-go: metav1.PatchOptions.FieldValidation, UpdateOptions.FieldValidation.
func TestFieldValidationOfPatchesAndUpdates(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	registerGadgets(t, s)
	ts := httpServer(t, s)
	path := "/apis/toys.informerlab.io/v1/namespaces/default/gadgets"
	created, data := do(t, ts, "POST", path+"?fieldValidation=Strict",
		`{"apiVersion":"toys.informerlab.io/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"colour":"red","parts":[{"name":"wheel"}]}}`,
		"Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, created.StatusCode, string(data))

	smp, smpData := do(t, ts, "PATCH", path+"/g?fieldValidation=Strict",
		`{"spec":{"$setElementOrder/parts":[{"name":"wheel"}],"parts":[{"name":"wheel","cuont":2}]}}`,
		"Content-Type", "application/strategic-merge-patch+json")
	merge, mergeData := do(t, ts, "PATCH", path+"/g?fieldValidation=Strict", `{"spec":{"color":"blue"}}`,
		"Content-Type", "application/merge-patch+json")
	good, goodData := do(t, ts, "PATCH", path+"/g?fieldValidation=Strict", `{"spec":{"colour":"blue"}}`,
		"Content-Type", "application/merge-patch+json")
	update, updateData := do(t, ts, "PUT", path+"/g?fieldValidation=Strict",
		`{"apiVersion":"toys.informerlab.io/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"colour":"red","shape":"round"}}`,
		"Content-Type", "application/json")

	smpStatus := requireStatus(t, smp, smpData, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	mergeStatus := requireStatus(t, merge, mergeData, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	assert.True(t, strings.HasSuffix(smpStatus.Message, `: strict decoding error: unknown field "spec.parts[0].cuont"`), smpStatus.Message)
	assert.True(t, strings.HasPrefix(mergeStatus.Message, ` "" is invalid: patch: Invalid value: "{`), mergeStatus.Message)
	assert.True(t, strings.HasSuffix(mergeStatus.Message, `: strict decoding error: unknown field "spec.color"`), mergeStatus.Message)
	assert.Contains(t, mergeStatus.Message, `\"color\":\"blue\"`, "the quoted patch result still has the field")
	assert.Equal(t, "patch", mergeStatus.Details.Causes[0].Field)
	assert.Equal(t, http.StatusOK, good.StatusCode, string(goodData))
	assert.Equal(t, `Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.shape"`,
		requireStatus(t, update, updateData, http.StatusBadRequest, metav1.StatusReasonBadRequest).Message)
}

// TestFieldValidationLetsASchemalessResourceTakeAnyField: a resource
// without a Go type has no list of fields to check against.
// Diagram: API. client-go: none (a CRD with x-kubernetes-preserve-unknown-fields).
func TestFieldValidationLetsASchemalessResourceTakeAnyField(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget", Namespaced: true}))
	ts := httpServer(t, s)

	resp, data := do(t, ts, "POST", "/apis/demo.informerlab.io/v1/namespaces/default/widgets?fieldValidation=Strict",
		`{"apiVersion":"demo.informerlab.io/v1","kind":"Widget","metadata":{"name":"w"},"anything":{"goes":true}}`,
		"Content-Type", "application/json")

	assert.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
}

// TestUnknownFieldsArePrunedWhereTheSchemaIsWhole: an unknown field is
// dropped from a built-in kind fakeapi models and from a custom resource
// with a Go type, in-process too (Strict refuses it there as well), and
// from a patch's result. A Go type registered for a kind of Kubernetes' own
// groups may be a subset of the real type: its unknown fields are kept
// unless a request asks with Strict (a Deployment is the exception: fakeapi
// knows the real type's fields, builtin_types.go).
// Diagram: API. client-go: none (kube-apiserver decoding and CRD pruning).
func TestUnknownFieldsArePrunedWhereTheSchemaIsWhole(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	registerGadgets(t, s)
	jobs := schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: jobs, Kind: "Job", Namespaced: true, Object: &gadget{}}))
	cms := s.Resource(configMaps).Namespace("default")
	gs := s.Resource(gadgets).Namespace("default")
	js := s.Resource(jobs).Namespace("default")
	withExtra := func(apiVersion, kind, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"colour": "red", "sparkle": true}}}
	}

	cm := mustCreate(t, cms, withExtra("v1", "ConfigMap", "cm"))
	g := mustCreate(t, gs, withExtra("toys.informerlab.io/v1", "Gadget", "g"))
	j := mustCreate(t, js, withExtra("batch/v1", "Job", "j"))
	_, strict := gs.Create(t.Context(), withExtra("toys.informerlab.io/v1", "Gadget", "strict"), metav1.CreateOptions{FieldValidation: "Strict"})
	_, strictSubset := js.Create(t.Context(), withExtra("batch/v1", "Job", "strict"), metav1.CreateOptions{FieldValidation: "Strict"})
	patched, err := gs.Patch(t.Context(), "g", types.MergePatchType, []byte(`{"spec":{"glow":1}}`), metav1.PatchOptions{})
	require.NoError(t, err)

	assert.NotContains(t, cm.Object, "spec", "ConfigMap has no spec")
	assert.Equal(t, map[string]any{"colour": "red"}, g.Object["spec"])
	assert.Equal(t, map[string]any{"colour": "red", "sparkle": true}, j.Object["spec"], "a subset type keeps what it does not know")
	assert.True(t, apierrors.IsBadRequest(strict), "got %v", strict)
	assert.EqualError(t, strictSubset, `Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.sparkle"`)
	assert.Equal(t, map[string]any{"colour": "red"}, patched.(*unstructured.Unstructured).Object["spec"])
}
