package fakeapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

// partialDeployment is a Go type for apps/v1 Deployments that has only a
// few of the real type's fields, as a controller's own type may (the
// sample controller's Deployment is one).
type partialDeployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas *int32 `json:"replicas,omitempty"`
	} `json:"spec"`
}

func (d *partialDeployment) DeepCopyObject() runtime.Object { c := *d; return &c }

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

const deploymentsPath = "/apis/apps/v1/namespaces/default/deployments"

// TestDeploymentIsDecodedAsTheRealTypeWhateverItsRegisteredType: a
// Deployment registered with a partial Go type is still read the way
// kube-apiserver reads it, into the whole apps/v1 type: a field the
// partial type lacks, at any depth, refuses the write with 400 and the
// real decoder's message when it has the wrong JSON type, and is kept when
// it is right. Before, such a field was stored unread, and every typed
// Deployment informer then failed its lists.
// Diagram: API. kube-apiserver: decoding into apps/v1.Deployment; client-go: a typed Deployment informer.
func TestDeploymentIsDecodedAsTheRealTypeWhateverItsRegisteredType(t *testing.T) {
	const prefix = `Deployment in version "v1" cannot be handled as a Deployment: `
	for _, tc := range []struct {
		name, spec, message string
	}{
		{"a string for minReadySeconds", `{"minReadySeconds":"soon"}`,
			prefix + `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.minReadySeconds of type int32`},
		{"a string for a container port", `{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":"80"}]}]}}}`,
			prefix + `json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32`},
		{"a number for a named string type", `{"template":{"spec":{"restartPolicy":5}}}`,
			prefix + `json: cannot unmarshal number into Go struct field PodSpec.spec.template.spec.restartPolicy of type v1.RestartPolicy`},
		{"an object for a resource list", `{"template":{"spec":{"containers":[{"name":"web","resources":{"limits":"lots"}}]}}}`,
			prefix + `json: cannot unmarshal string into Go struct field ResourceRequirements.spec.template.spec.containers.resources.limits of type v1.ResourceList`},
		{"a bool for an int-or-string", `{"strategy":{"rollingUpdate":{"maxSurge":true}}}`,
			prefix + `json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32`},
		{"well-typed fields the partial type lacks", `{"minReadySeconds":5,"strategy":{"rollingUpdate":{"maxSurge":"25%"}},"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m"}}}]}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, fakeapi.Options{})
			require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: deployments, Kind: "Deployment", Namespaced: true, HasStatus: true, Object: &partialDeployment{}}))
			ts := httpServer(t, s)
			rv := s.CurrentResourceVersion()

			resp, data := do(t, ts, "POST", deploymentsPath, `{"metadata":{"name":"d"},"spec":`+tc.spec+`}`, "Content-Type", "application/json")

			if tc.message == "" {
				require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
				assert.Equal(t, float64(5), asMap(t, data)["spec"].(map[string]any)["minReadySeconds"], "kept")
				return
			}
			st := requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
			assert.Equal(t, tc.message, st.Message)
			assert.Equal(t, rv, s.CurrentResourceVersion(), "nothing stored")
		})
	}
}

// TestDeploymentPatchProducingIllTypedFieldIsInvalid: a patch whose result
// would not decode into the real type is 422, as for any built-in kind.
// Diagram: API. kube-apiserver: the patch handler decodes the patched object.
func TestDeploymentPatchProducingIllTypedFieldIsInvalid(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: deployments, Kind: "Deployment", Namespaced: true, HasStatus: true, Object: &partialDeployment{}}))
	ds := s.Resource(deployments).Namespace("default")
	_, err := ds.Create(context.Background(), &partialDeployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	_, err = ds.Patch(context.Background(), "d", types.MergePatchType, []byte(`{"spec":{"paused":"yes"}}`), metav1.PatchOptions{})

	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool`)
}

// TestDeploymentUnknownFieldsAreThoseOfTheRealType: under
// fieldValidation=Strict (kubectl's default) a Deployment's well-typed
// fields that a partial Go type lacks are accepted, and only the fields the
// real type lacks are unknown: refused under Strict, dropped with a Warning
// otherwise, as kube-apiserver does.
// Diagram: API. kube-apiserver: strict decoding into apps/v1.Deployment; kubectl create --validate=strict.
func TestDeploymentUnknownFieldsAreThoseOfTheRealType(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: deployments, Kind: "Deployment", Namespaced: true, HasStatus: true, Object: &partialDeployment{}}))
	ts := httpServer(t, s)
	body := func(name, extra string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"minReadySeconds":5,"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":80}]` + extra + `}]}}}}`
	}

	realFields, realData := do(t, ts, "POST", deploymentsPath+"?fieldValidation=Strict", body("real", ""), "Content-Type", "application/json")
	strict, strictData := do(t, ts, "POST", deploymentsPath+"?fieldValidation=Strict", body("strict", `,"colour":"red"`), "Content-Type", "application/json")
	warned, warnedData := do(t, ts, "POST", deploymentsPath, body("warned", `,"colour":"red"`), "Content-Type", "application/json")

	assert.Equal(t, http.StatusCreated, realFields.StatusCode, string(realData))
	st := requireStatus(t, strict, strictData, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	assert.Equal(t, `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].colour"`, st.Message)
	require.Equal(t, http.StatusCreated, warned.StatusCode, string(warnedData))
	assert.Equal(t, []string{`299 - "unknown field \"spec.template.spec.containers[0].colour\""`}, warned.Header.Values("Warning"))
	assert.NotContains(t, string(warnedData), "colour", "dropped")
}
