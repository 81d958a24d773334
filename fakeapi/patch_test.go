package fakeapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestPatchTypes checks each patch type against a stored object, and that a
// patch carrying a stale resourceVersion is a Conflict.
// Diagram: API. client-go: Patch(ctx, name, pt, data, opts) as kubectl label/annotate use it.
func TestPatchTypes(t *testing.T) {
	tests := []struct {
		name  string
		pt    types.PatchType
		patch string
		check func(t *testing.T, u *unstructured.Unstructured, err error)
	}{
		{"merge", types.MergePatchType, `{"metadata":{"labels":{"a":"b"}},"data":{"k":null,"n":"1"}}`, func(t *testing.T, u *unstructured.Unstructured, err error) {
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"a": "b"}, u.GetLabels())
			assert.Equal(t, map[string]any{"n": "1"}, u.Object["data"])
		}},
		{"strategic", types.StrategicMergePatchType, `{"metadata":{"labels":{"a":"b"}},"data":{"k":null,"n":"1"}}`, func(t *testing.T, u *unstructured.Unstructured, err error) {
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"a": "b"}, u.GetLabels())
			assert.Equal(t, map[string]any{"n": "1"}, u.Object["data"])
		}},
		{"strategic unknown directive", types.StrategicMergePatchType, `{"data":{"$patch":"bogus"}}`, func(t *testing.T, _ *unstructured.Unstructured, err error) {
			assert.True(t, apierrors.IsInvalid(err), "got %v", err)
		}},
		{"json patch", types.JSONPatchType, `[{"op":"replace","path":"/data/k","value":"w"}]`, func(t *testing.T, u *unstructured.Unstructured, err error) {
			require.NoError(t, err)
			assert.Equal(t, map[string]any{"k": "w"}, u.Object["data"])
		}},
		{"apply", types.ApplyPatchType, `{}`, func(t *testing.T, _ *unstructured.Unstructured, err error) {
			assert.True(t, apierrors.IsUnsupportedMediaType(err), "got %v", err)
		}},
		{"stale resourceVersion", types.MergePatchType, `{"metadata":{"resourceVersion":"0"},"data":{"k":"z"}}`, func(t *testing.T, _ *unstructured.Unstructured, err error) {
			assert.True(t, apierrors.IsConflict(err), "got %v", err)
		}},
		{"rename", types.MergePatchType, `{"metadata":{"name":"other"}}`, func(t *testing.T, _ *unstructured.Unstructured, err error) {
			assert.True(t, apierrors.IsBadRequest(err), "got %v", err)
		}},
		{"not json", types.MergePatchType, `{`, func(t *testing.T, _ *unstructured.Unstructured, err error) {
			assert.True(t, apierrors.IsBadRequest(err), "got %v", err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, fakeapi.Options{})
			cms := s.Resource(configMaps).Namespace("default")
			mustCreate(t, cms, configMap("default", "a"))

			out, err := cms.Patch(context.Background(), "a", tt.pt, []byte(tt.patch), metav1.PatchOptions{})

			u, _ := out.(*unstructured.Unstructured)
			tt.check(t, u, err)
		})
	}
}

// TestPatchMissingObjectIsNotFound checks Patch on a name that does not exist.
// Diagram: API. client-go: apierrors.IsNotFound.
func TestPatchMissingObjectIsNotFound(t *testing.T) {
	s := newServer(t, fakeapi.Options{})

	_, err := s.Resource(configMaps).Namespace("default").Patch(context.Background(), "nope", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})

	assert.True(t, apierrors.IsNotFound(err), "got %v", err)
}
