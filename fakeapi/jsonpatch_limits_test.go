package fakeapi_test

import (
	"context"
	"fmt"
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

// sprockets is a schemaless custom resource: nothing but the patch limits
// bounds what a patch makes of it.
var sprockets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "sprockets"}

// jsonPatch joins n copies of op into a JSON patch; %d in op is the index.
func jsonPatch(n int, op string) []byte {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = strings.ReplaceAll(op, "%d", fmt.Sprint(i))
	}
	return []byte("[" + strings.Join(ops, ",") + "]")
}

// TestJSONPatchCopiesAddingOverThreeMiBAreRefused: each copy of /spec into
// itself doubles the object. Eleven copies of a 1 KiB spec add 2 MiB and
// pass; a twelfth would add 2 MiB more, passing the 3 MiB the real server
// lets copies add, and the patch is refused with its generic 422, leaving
// the object as it was. Without the limit 18 copies made 256 MiB.
// Diagram: API. kube-apiserver: JSONPatchMaxCopyBytes (3 MiB), evanphx/json-patch's AccumulatedCopySizeLimit.
func TestJSONPatchCopiesAddingOverThreeMiBAreRefused(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: sprockets, Kind: "Sprocket", Namespaced: true}))
	ws := s.Resource(sprockets).Namespace("default")
	for _, name := range []string{"eleven", "twelve"} {
		mustCreate(t, ws, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Sprocket", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"blob": strings.Repeat("x", 1000)},
		}})
	}
	copyIntoItself := `{"op":"copy","from":"/spec","path":"/spec/c%d"}`

	eleven, errEleven := ws.Patch(context.Background(), "eleven", types.JSONPatchType, jsonPatch(11, copyIntoItself), metav1.PatchOptions{})
	_, errTwelve := ws.Patch(context.Background(), "twelve", types.JSONPatchType, jsonPatch(12, copyIntoItself), metav1.PatchOptions{})

	require.NoError(t, errEleven)
	assert.Contains(t, eleven.(*unstructured.Unstructured).Object["spec"], "c10")
	require.Error(t, errTwelve)
	st := errTwelve.(apierrors.APIStatus).Status()
	assert.Equal(t, int32(http.StatusUnprocessableEntity), st.Code)
	assert.Equal(t, metav1.StatusReasonInvalid, st.Reason)
	assert.Equal(t, "the server rejected our request due to an error in our request", st.Message)
	stored := mustGet(t, ws, "twelve")
	assert.Equal(t, map[string]any{"blob": strings.Repeat("x", 1000)}, stored.Object["spec"], "a refused patch changes nothing")
}

// TestJSONPatchOfOverTenThousandOperationsIsTooLarge: 10,000 operations
// are allowed, 10,001 are 413 in the real server's words, and only once
// the object is found (a missing one is 404 first).
// Diagram: API. kube-apiserver: maxJSONPatchOperations in the patch handler.
func TestJSONPatchOfOverTenThousandOperationsIsTooLarge(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))
	test := `{"op":"test","path":"/data/k","value":"v"}`

	_, errAtLimit := cms.Patch(context.Background(), "a", types.JSONPatchType, jsonPatch(10_000, test), metav1.PatchOptions{})
	_, errOver := cms.Patch(context.Background(), "a", types.JSONPatchType, jsonPatch(10_001, test), metav1.PatchOptions{})
	_, errMissing := cms.Patch(context.Background(), "nope", types.JSONPatchType, jsonPatch(10_001, test), metav1.PatchOptions{})

	assert.NoError(t, errAtLimit)
	require.Error(t, errOver)
	assert.True(t, apierrors.IsRequestEntityTooLargeError(errOver), "got %v", errOver)
	assert.Equal(t, "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001", errOver.Error())
	assert.True(t, apierrors.IsNotFound(errMissing), "got %v", errMissing)
}
