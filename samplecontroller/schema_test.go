package samplecontroller_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// fooInvalidReplicas is what a real API server with the Foo CRD answers a
// Foo whose spec.replicas is a string.
const fooInvalidReplicas = `Foo.samplecontroller.k8s.io "bad" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`

// TestFakeapiRefusesAFooWithAStringForReplicas: fakeapi with NewScheme
// validates Foos against the Foo type, like a real API server against the
// CRD's schema: spec.replicas "three" is 422 Invalid on create, update and
// patch, and the Foo informers list never holds it (one such object would
// make every typed list fail to decode, and the cache never sync).
// Diagram: API, before step 1. client-go: none (kube-apiserver's CRD schema validation).
func TestFakeapiRefusesAFooWithAStringForReplicas(t *testing.T) {
	ctx := context.Background()
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	defer srv.Close()
	require.NoError(t, sc.Register(srv))
	foos := srv.Resource(sc.FoosGVR).Namespace("demo")
	two := int32(2)
	_, err := foos.Create(ctx, &sc.Foo{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Spec: sc.FooSpec{DeploymentName: "web", Replicas: &two}}, metav1.CreateOptions{})
	require.NoError(t, err)
	bad := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": sc.FooGroupVersion.String(), "kind": "Foo",
			"metadata": map[string]any{"name": name, "namespace": "demo"},
			"spec":     map[string]any{"deploymentName": "web", "replicas": "three"},
		}}
	}

	_, errCreate := foos.Create(ctx, bad("other"), metav1.CreateOptions{})
	_, errUpdate := foos.Update(ctx, bad("bad"), metav1.UpdateOptions{})
	_, errPatch := foos.Patch(ctx, "bad", types.MergePatchType, []byte(`{"spec":{"replicas":"three"}}`), metav1.PatchOptions{})
	list, errList := foos.List(ctx, metav1.ListOptions{})

	for _, err := range []error{errCreate, errUpdate, errPatch} {
		assert.True(t, apierrors.IsInvalid(err), "got %v", err)
	}
	assert.Equal(t, strings.Replace(fooInvalidReplicas, `"bad"`, `"other"`, 1), errCreate.Error())
	assert.Equal(t, fooInvalidReplicas, errUpdate.Error())
	assert.Equal(t, fooInvalidReplicas, errPatch.Error())
	require.NoError(t, errList)
	require.Len(t, list.(*sc.FooList).Items, 1)
	assert.Equal(t, int32(2), *list.(*sc.FooList).Items[0].Spec.Replicas)
}

// TestFakeapiRefusesAFooWithAStringForReplicasOverHTTP: the same over HTTP,
// as kubectl would send it: 422 with the real server's message and the
// field in the Status's causes.
// Diagram: API. client-go: none (kubectl create against a real cluster).
func TestFakeapiRefusesAFooWithAStringForReplicasOverHTTP(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	require.NoError(t, sc.Register(srv))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()
	body := `{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"bad"},"spec":{"deploymentName":"web","replicas":"three"}}`

	resp, err := http.Post(hs.URL+"/apis/samplecontroller.k8s.io/v1alpha1/namespaces/demo/foos", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)

	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	st := decodeStatus(t, data)
	assert.Equal(t, metav1.StatusReasonInvalid, st.Reason)
	assert.Equal(t, fooInvalidReplicas, st.Message)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, "spec.replicas", st.Details.Causes[0].Field)
}

func decodeStatus(t *testing.T, data []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	require.NoError(t, json.Unmarshal(data, &st), string(data))
	return st
}
