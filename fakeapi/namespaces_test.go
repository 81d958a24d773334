package fakeapi_test

import (
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestServerStartsWithTheNamespacesOfARealCluster: default, kube-system,
// kube-public and kube-node-lease exist from the start, Active, at
// resourceVersion 1, and no watch event announces them; the first write
// still gets resourceVersion 2.
// Diagram: API. client-go: none (kube-apiserver creates them at start).
func TestServerStartsWithTheNamespacesOfARealCluster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		nss := s.Resource(namespaces)

		list, err := nss.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		replay, err := nss.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "1"})
		require.NoError(t, err)
		defer replay.Stop()
		first := mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

		assert.Equal(t, []string{"default", "kube-node-lease", "kube-public", "kube-system"}, names(t, list))
		for _, ns := range list.(*unstructured.UnstructuredList).Items {
			assert.Equal(t, "1", ns.GetResourceVersion())
			phase, _, _ := unstructured.NestedString(ns.Object, "status", "phase")
			assert.Equal(t, "Active", phase)
		}
		assert.Equal(t, "2", first.GetResourceVersion())
		expectQuiet(t, replay)
		require.NoError(t, s.CheckInvariants())
	})
}

// TestNamespaceLifecycleRefusesCreatesOutsideLiveNamespaces: with
// Options.NamespaceLifecycle, a create in a namespace that does not exist
// is 404 NotFound for the namespace, and one in a namespace being deleted
// is 403 Forbidden with a NamespaceTerminating cause, both in the real
// server's words; objects already there can still be changed. Without the
// option any namespace name is accepted.
// Diagram: API. client-go: none (kube-apiserver NamespaceLifecycle admission).
func TestNamespaceLifecycleRefusesCreatesOutsideLiveNamespaces(t *testing.T) {
	s := newServer(t, fakeapi.Options{NamespaceLifecycle: true})
	ts := httpServer(t, s)
	lax := newServer(t, fakeapi.Options{})
	nss := s.Resource(namespaces)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "team", "finalizers": []any{"example.com/hold"}}}}
	mustCreate(t, nss, ns)
	inTeam := mustCreate(t, s.Resource(configMaps).Namespace("team"), configMap("team", "before"))
	require.NoError(t, nss.Delete(t.Context(), "team", metav1.DeleteOptions{}))

	missing, missingData := do(t, ts, "POST", "/api/v1/namespaces/nowhere/configmaps", `{"metadata":{"name":"a"}}`)
	gone, goneData := do(t, ts, "POST", "/api/v1/namespaces/team/configmaps", `{"metadata":{"name":"a"}}`)
	inTeam.Object["data"] = map[string]any{"k": "changed"}
	_, updateErr := s.Resource(configMaps).Namespace("team").Update(t.Context(), inTeam, metav1.UpdateOptions{})
	_, laxErr := lax.Resource(configMaps).Namespace("nowhere").Create(t.Context(), configMap("nowhere", "a"), metav1.CreateOptions{})
	_, inDefault := s.Resource(configMaps).Namespace("default").Create(t.Context(), configMap("default", "a"), metav1.CreateOptions{})

	st := requireStatus(t, missing, missingData, http.StatusNotFound, metav1.StatusReasonNotFound)
	assert.Equal(t, `namespaces "nowhere" not found`, st.Message)
	assert.Equal(t, "namespaces", st.Details.Kind)
	st = requireStatus(t, gone, goneData, http.StatusForbidden, metav1.StatusReasonForbidden)
	assert.Equal(t, `configmaps "a" is forbidden: unable to create new content in namespace team because it is being terminated`, st.Message)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, metav1.CauseType("NamespaceTerminating"), st.Details.Causes[0].Type)
	assert.Equal(t, "metadata.namespace", st.Details.Causes[0].Field)
	phase, _, _ := unstructured.NestedString(mustGet(t, nss, "team").Object, "status", "phase")
	assert.Equal(t, "Terminating", phase)
	assert.NoError(t, updateErr)
	assert.NoError(t, laxErr)
	assert.NoError(t, inDefault)
}
