package fakeapi_test

import (
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

// deployment builds an apps/v1 Deployment selecting app=selected, whose
// pod template is labelled app=labelled.
func deployment(name, selected, labelled string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": selected}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": labelled}}},
		},
	}}
}

// TestDeploymentWhoseSelectorMissesItsTemplateIsRefused: a Deployment's
// selector must match its pod template's labels, on create, update and
// patch, with kube-apiserver's 422 and message (apps validation,
// ValidateDeploymentSpec).
func TestDeploymentWhoseSelectorMissesItsTemplateIsRefused(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: deployments, Kind: "Deployment", Namespaced: true}))
	deps := s.Resource(deployments).Namespace("default")

	_, err := deps.Create(t.Context(), deployment("bad", "web", "api"), metav1.CreateOptions{})
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.EqualError(t, err, `Deployment.apps "bad" is invalid: spec.template.metadata.labels: `+
		`Invalid value: {"app":"api"}: `+"`selector` does not match template `labels`")

	good := mustCreate(t, deps, deployment("good", "web", "web"))
	bad := deployment("good", "web", "api")
	bad.SetResourceVersion(good.GetResourceVersion())
	_, err = deps.Update(t.Context(), bad, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "an update that breaks the match: %v", err)
	_, err = deps.Patch(t.Context(), "good", types.MergePatchType,
		[]byte(`{"spec":{"template":{"metadata":{"labels":{"app":"other"}}}}}`), metav1.PatchOptions{})
	assert.True(t, apierrors.IsInvalid(err), "a patch that breaks the match: %v", err)

	extra := deployment("extra", "web", "web")
	require.NoError(t, unstructured.SetNestedField(extra.Object, "v2", "spec", "template", "metadata", "labels", "tier"))
	mustCreate(t, deps, extra) // template labels beyond the selector are fine
}
