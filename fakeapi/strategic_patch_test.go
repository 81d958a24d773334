package fakeapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

func smp(t *testing.T, c *fakeapi.ResourceClient, name, patch string) (*unstructured.Unstructured, error) {
	t.Helper()
	out, err := c.Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	u, _ := out.(*unstructured.Unstructured)
	return u, err
}

// TestStrategicMergePatchMergesListsByTheirMergeKey: a list tagged
// patchStrategy:"merge" keeps the elements the patch does not mention and
// merges the ones it does, by key; $setElementOrder (as kubectl apply sends
// it) orders them; an untagged list is replaced, as in a merge patch.
// Diagram: API. client-go: none (the apiserver's strategic merge patch, kubectl apply).
func TestStrategicMergePatchMergesListsByTheirMergeKey(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	registerGadgets(t, s)
	c := s.Resource(gadgets).Namespace("default")
	mustCreate(t, c, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.informerlab.io/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g"},
		"spec": map[string]any{"colour": "red", "tags": []any{"a", "b"},
			"parts": []any{map[string]any{"name": "wheel", "count": int64(4)}, map[string]any{"name": "bell", "count": int64(1)}}},
	}})

	got, err := smp(t, c, "g", `{"spec":{"$setElementOrder/parts":[{"name":"bell"},{"name":"wheel"}],"parts":[{"name":"wheel","count":3}],"tags":["c"]}}`)

	require.NoError(t, err)
	assert.Equal(t, []any{
		map[string]any{"name": "bell", "count": int64(1)},
		map[string]any{"name": "wheel", "count": int64(3)},
	}, got.Object["spec"].(map[string]any)["parts"])
	assert.Equal(t, []any{"c"}, got.Object["spec"].(map[string]any)["tags"])
	assert.Equal(t, "red", got.Object["spec"].(map[string]any)["colour"])
}

// TestStrategicMergePatchDirectivesOnABuiltInKind: the directives kubectl
// and controllers use act on fakeapi's model of a built-in kind: $patch:
// delete removes a map, finalizers (a set in ObjectMeta) merge, and a
// $deleteFromPrimitiveList removes from them.
// Diagram: API. client-go: none (the apiserver's strategic merge patch).
func TestStrategicMergePatchDirectivesOnABuiltInKind(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	cm := configMap("default", "a")
	cm.SetFinalizers([]string{"example.com/one"})
	mustCreate(t, cms, cm)

	added, err1 := smp(t, cms, "a", `{"metadata":{"finalizers":["example.com/two"]}}`)
	removed, err2 := smp(t, cms, "a", `{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/one"]},"data":{"$patch":"delete"}}`)

	require.NoError(t, err1)
	require.NoError(t, err2)
	assert.ElementsMatch(t, []string{"example.com/one", "example.com/two"}, added.GetFinalizers(), "a set: merged, not replaced")
	assert.Equal(t, []string{"example.com/two"}, removed.GetFinalizers())
	assert.Empty(t, removed.Object["data"], "$patch: delete empties the map")
}

// TestStrategicMergePatchThatDoesNotFitIsRefused: a field the type does not
// have is dropped from the patched object, as the real server's decoding
// drops it; an unknown directive is refused; a resource
// without a Go type refuses strategic merge patches with 415 naming the
// patch types it takes, as a real server does for a custom resource,
// instead of applying them as merge patches. Nothing changes.
// Diagram: API. client-go: apierrors.IsInvalid, IsBadRequest, IsUnsupportedMediaType.
func TestStrategicMergePatchThatDoesNotFitIsRefused(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget", Namespaced: true}))
	cms := s.Resource(configMaps).Namespace("default")
	cm := configMap("default", "a")
	mustCreate(t, cms, cm)
	ws := s.Resource(widgets).Namespace("default")
	mustCreate(t, ws, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.informerlab.io/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}})

	_, unknown := smp(t, cms, "a", `{"extra":{"a":"2"}}`)
	_, badDirective := smp(t, cms, "a", `{"data":{"$patch":"bogus"}}`)
	_, schemaless := smp(t, ws, "w", `{"metadata":{"labels":{"a":"b"}}}`)
	merged, mergeErr := ws.Patch(context.Background(), "w", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})

	assert.NoError(t, unknown)
	assert.NotContains(t, mustGet(t, cms, "a").Object, "extra", "the unknown field was dropped")
	assert.True(t, apierrors.IsInvalid(badDirective), "got %v", badDirective)
	assert.ErrorContains(t, badDirective, "bogus")
	assert.True(t, apierrors.IsUnsupportedMediaType(schemaless), "got %v", schemaless)
	assert.ErrorContains(t, schemaless, "use application/merge-patch+json or application/json-patch+json")
	require.NoError(t, mergeErr)
	assert.Equal(t, map[string]string{"a": "b"}, merged.(*unstructured.Unstructured).GetLabels())
	assert.Equal(t, cm.Object["data"], mustGet(t, cms, "a").Object["data"], "nothing changed")
	assert.Equal(t, http.StatusUnsupportedMediaType, int(schemaless.(apierrors.APIStatus).Status().Code))
}
