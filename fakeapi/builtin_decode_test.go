package fakeapi_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestBuiltinKindWithFieldOfWrongTypeIsBadRequest: a body that a typed
// client could not decode (a number in a ConfigMap's data, a string for a
// Lease's int32) is refused before anything is stored, with 400 and the
// real server's decoder message, on create and on update, over HTTP and
// in-process alike: no typed informer of the kind can be wedged by it.
// Diagram: API. client-go: a typed ConfigMap informer decodes every item of its list.
func TestBuiltinKindWithFieldOfWrongTypeIsBadRequest(t *testing.T) {
	const leasePath = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	tests := []struct {
		name, method, path, body, message string
	}{
		{"number in data", "POST", cmPath, `{"metadata":{"name":"a"},"data":{"k":5}}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`},
		{"list for data", "POST", cmPath, `{"metadata":{"name":"a"},"data":["k"]}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string`},
		{"number for a label", "POST", cmPath, `{"metadata":{"name":"a","labels":{"app":1}}}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string`},
		{"binaryData not base64", "POST", cmPath, `{"metadata":{"name":"a"},"binaryData":{"k":"!!"}}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0`},
		{"string for an int32", "POST", leasePath, `{"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":"15"}}`,
			`Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32`},
		{"int32 overflow", "POST", leasePath, `{"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":3000000000}}`,
			`Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number 3000000000 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32`},
		{"bad timestamp", "POST", leasePath, `{"metadata":{"name":"l"},"spec":{"renewTime":7}}`,
			`Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime of type string`},
		{"update", "PUT", cmPath + "/kept", `{"metadata":{"name":"kept"},"data":{"k":true}}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, fakeapi.Options{})
			ts := httpServer(t, s)
			mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "kept"))
			rv := s.CurrentResourceVersion()

			resp, data := do(t, ts, tt.method, tt.path, tt.body, "Content-Type", "application/json")

			st := requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
			assert.Equal(t, tt.message, st.Message)
			assert.Equal(t, rv, s.CurrentResourceVersion(), "nothing stored")
		})
	}
}

// TestBuiltinKindIllTypedInProcessAndOnTheSilentPath: the in-process
// client and the silent admin path go through the same decoding.
// Diagram: API. client-go: none (fakeapi's in-process and fault paths).
func TestBuiltinKindIllTypedInProcessAndOnTheSilentPath(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	bad := configMap("default", "a")
	bad.Object["data"] = map[string]any{"k": int64(5)}

	_, inProcess := s.Resource(configMaps).Namespace("default").Create(t.Context(), bad, metav1.CreateOptions{})
	_, silent := s.SilentResource(configMaps).Namespace("default").Create(t.Context(), bad, metav1.CreateOptions{})
	resp, data := do(t, ts, "POST", "/admin/silent"+cmPath, `{"metadata":{"name":"a"},"data":{"k":5}}`, "Content-Type", "application/json")

	assert.True(t, apierrors.IsBadRequest(inProcess), "got %v", inProcess)
	assert.True(t, apierrors.IsBadRequest(silent), "got %v", silent)
	requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	assert.Equal(t, uint64(1), s.CurrentResourceVersion(), "nothing stored")
}

// TestPatchProducingIllTypedObjectIsInvalid: a patch is applied, then its
// result decoded: a result a typed client could not decode is 422 Invalid
// with the patched object as the invalid "patch" value, as on the real
// server, and the stored object does not change.
// Diagram: API. client-go: none (kube-apiserver's patcher).
func TestPatchProducingIllTypedObjectIsInvalid(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))

	for _, pt := range []types.PatchType{types.MergePatchType, types.StrategicMergePatchType} {
		_, err := cms.Patch(t.Context(), "a", pt, []byte(`{"data":{"k":5}}`), metav1.PatchOptions{})

		require.True(t, apierrors.IsInvalid(err), "%s: got %v", pt, err)
		st := err.(apierrors.APIStatus).Status()
		assert.True(t, strings.HasPrefix(st.Message, ` "" is invalid: patch: Invalid value: "{`), st.Message)
		assert.True(t, strings.HasSuffix(st.Message, `json: cannot unmarshal number into Go struct field ConfigMap.data of type string`), st.Message)
		assert.Equal(t, "patch", st.Details.Causes[0].Field)
	}
	_, err := cms.Patch(t.Context(), "a", types.JSONPatchType, []byte(`[{"op":"replace","path":"/data/k","value":[1]}]`), metav1.PatchOptions{})
	assert.True(t, apierrors.IsInvalid(err), "json patch: got %v", err)
	assert.Equal(t, "v", mustGet(t, cms, "a").Object["data"].(map[string]any)["k"], "nothing changed")
}

// TestConfigMapAndSecretHoldAtMostOneMiB: 1 MiB of data is the most a
// ConfigMap (values of data and binaryData) or a Secret (decoded values) may
// hold, as on the real server: one byte more is 422 Invalid. Secret
// stringData counts once merged into data.
// Diagram: API. client-go: none (kube-apiserver core validation, MaxSecretSize).
func TestConfigMapAndSecretHoldAtMostOneMiB(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.SecretResource))
	cms := s.Resource(configMaps).Namespace("default")
	secrets := s.Resource(fakeapi.SecretResource.GVR).Namespace("default")
	cm := func(name string, n int) *unstructured.Unstructured {
		u := configMap("default", name)
		u.Object["data"] = map[string]any{"k": strings.Repeat("x", n/2)}
		u.Object["binaryData"] = map[string]any{"b": base64.StdEncoding.EncodeToString(make([]byte, n-n/2))}
		return u
	}
	secret := func(name string, n int, stringData bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name}}}
		if stringData {
			u.Object["stringData"] = map[string]any{"k": strings.Repeat("x", n)}
		} else {
			u.Object["data"] = map[string]any{"k": base64.StdEncoding.EncodeToString(make([]byte, n))}
		}
		return u
	}

	_, cmFits := cms.Create(t.Context(), cm("fits", fakeapi.MaxDataBytes), metav1.CreateOptions{})
	_, cmTooBig := cms.Create(t.Context(), cm("big", fakeapi.MaxDataBytes+1), metav1.CreateOptions{})
	_, secretFits := secrets.Create(t.Context(), secret("fits", fakeapi.MaxDataBytes, false), metav1.CreateOptions{})
	_, secretTooBig := secrets.Create(t.Context(), secret("big", fakeapi.MaxDataBytes+1, false), metav1.CreateOptions{})
	_, stringDataTooBig := secrets.Create(t.Context(), secret("sd", fakeapi.MaxDataBytes+1, true), metav1.CreateOptions{})
	_, growTooBig := cms.Update(t.Context(), cm("fits", fakeapi.MaxDataBytes+1), metav1.UpdateOptions{})

	require.NoError(t, cmFits)
	require.NoError(t, secretFits)
	assert.EqualError(t, cmTooBig, `ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes`)
	assert.EqualError(t, secretTooBig, `Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes`)
	assert.EqualError(t, stringDataTooBig, `Secret "sd" is invalid: data: Too long: may not be more than 1048576 bytes`)
	assert.True(t, apierrors.IsInvalid(growTooBig), "an update may not grow past it: %v", growTooBig)
}

// TestSecretStringDataIsMergedIntoData: a Secret is stored as a typed
// client reads it back: stringData merged into data, base64, over data's
// value of the same key; type Opaque by default.
// Diagram: API. client-go: none (core/v1 Secret conversion and defaulting).
func TestSecretStringDataIsMergedIntoData(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.SecretResource))
	secrets := s.Resource(fakeapi.SecretResource.GVR).Namespace("default")

	got := mustCreate(t, secrets, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "s"},
		"data":       map[string]any{"a": base64.StdEncoding.EncodeToString([]byte("old")), "b": "Yg=="},
		"stringData": map[string]any{"a": "new"}}})

	assert.Equal(t, map[string]any{"a": base64.StdEncoding.EncodeToString([]byte("new")), "b": "Yg=="}, got.Object["data"])
	assert.NotContains(t, got.Object, "stringData")
	assert.Equal(t, "Opaque", got.Object["type"])
}

// TestConfigMapKeysAreValidated: keys of data and binaryData must be
// alphanumerics, '-', '_' or '.', and a key may not be in both.
// Diagram: API. client-go: none (kube-apiserver ValidateConfigMap).
func TestConfigMapKeysAreValidated(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	u := configMap("default", "a")
	u.Object["data"] = map[string]any{"bad key": "v", "dup": "v"}
	u.Object["binaryData"] = map[string]any{"dup": "dg=="}

	_, err := cms.Create(t.Context(), u, metav1.CreateOptions{})

	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	var fields []string
	for _, c := range causes {
		fields = append(fields, fmt.Sprintf("%s: %s", c.Field, c.Message))
	}
	assert.Len(t, fields, 2, "%v", fields)
	assert.Contains(t, fields[0], "data[bad key]: Invalid value")
	assert.Contains(t, fields[1], "data[dup]: Invalid value: \"dup\": duplicate of key present in binaryData")
}
