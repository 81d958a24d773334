package fakeapi_test

import (
	"context"
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

// TestMetadataRulesOfTheRealServer: each rule kube-apiserver enforces on
// every object's metadata refuses a create with 422 Invalid, the field path
// and the real server's words; an object just inside each rule is created.
// Diagram: API. kube-apiserver: apimachinery's ValidateObjectMeta, core validation's finalizer names.
func TestMetadataRulesOfTheRealServer(t *testing.T) {
	yes := true
	owner := func(name string, controller bool) metav1.OwnerReference {
		ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: types.UID(name + "-uid")}
		if controller {
			ref.Controller = &yes
		}
		return ref
	}
	for _, tc := range []struct {
		name string
		set  func(cm *unstructured.Unstructured)
		msg  string // "" for created
	}{
		{"annotations of exactly 256 KiB", func(cm *unstructured.Unstructured) {
			cm.SetAnnotations(map[string]string{"k": strings.Repeat("x", 256<<10-1)})
		}, ""},
		{"annotations over 256 KiB", func(cm *unstructured.Unstructured) {
			cm.SetAnnotations(map[string]string{"k": strings.Repeat("x", 256<<10)})
		}, `ConfigMap "a" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes`},
		{"annotation key with a space", func(cm *unstructured.Unstructured) {
			cm.SetAnnotations(map[string]string{"bad key": "v"})
		}, `ConfigMap "a" is invalid: metadata.annotations: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"annotation key with an upper-case prefix", func(cm *unstructured.Unstructured) {
			cm.SetAnnotations(map[string]string{"Example.COM/Key": "v"})
		}, ""},
		{"annotation key with a bad prefix", func(cm *unstructured.Unstructured) {
			cm.SetAnnotations(map[string]string{"-example.com/k": "v"})
		}, `ConfigMap "a" is invalid: metadata.annotations: Invalid value: "-example.com/k": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"finalizer that is not a qualified name", func(cm *unstructured.Unstructured) {
			cm.SetFinalizers([]string{"example.com/bad name"})
		}, `ConfigMap "a" is invalid: metadata.finalizers: Invalid value: "example.com/bad name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"finalizer without a domain", func(cm *unstructured.Unstructured) {
			cm.SetFinalizers([]string{"mine"})
		}, `ConfigMap "a" is invalid: metadata.finalizers[0]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified`},
		{"the standard finalizers", func(cm *unstructured.Unstructured) {
			cm.SetFinalizers([]string{"kubernetes", "orphan"})
		}, ""},
		{"orphan and foregroundDeletion together", func(cm *unstructured.Unstructured) {
			cm.SetFinalizers([]string{"orphan", "foregroundDeletion"})
		}, `ConfigMap "a" is invalid: metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`},
		{"one controller owner", func(cm *unstructured.Unstructured) {
			cm.SetOwnerReferences([]metav1.OwnerReference{owner("x", true), owner("y", false)})
		}, ""},
		{"two controller owners", func(cm *unstructured.Unstructured) {
			cm.SetOwnerReferences([]metav1.OwnerReference{owner("x", true), owner("y", true)})
		}, `ConfigMap "a" is invalid: metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"ConfigMap","name":"x","uid":"x-uid","controller":true},{"apiVersion":"v1","kind":"ConfigMap","name":"y","uid":"y-uid","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/x and ConfigMap/y`},
		{"owner reference without a uid", func(cm *unstructured.Unstructured) {
			cm.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x"}})
		}, `ConfigMap "a" is invalid: metadata.ownerReferences[0].uid: Required value: must not be empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, fakeapi.Options{})
			cms := s.Resource(configMaps).Namespace("default")
			cm := configMap("default", "a")
			tc.set(cm)

			_, err := cms.Create(context.Background(), cm, metav1.CreateOptions{})

			if tc.msg == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, apierrors.IsInvalid(err), "got %v", err)
			assert.Equal(t, tc.msg, err.Error())
		})
	}
}

// TestMetadataRulesHoldOnUpdateAndPatch: the rules hold on every write, not
// only on create: an update or a patch cannot bring in what a create could
// not, and the stored object stays as it was.
// Diagram: API. kube-apiserver: ValidateObjectMetaUpdate.
func TestMetadataRulesHoldOnUpdateAndPatch(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	stored := mustCreate(t, cms, configMap("default", "a"))
	big := stored.DeepCopy()
	big.SetAnnotations(map[string]string{"k": strings.Repeat("x", 256<<10)})

	_, errUpdate := cms.Update(context.Background(), big, metav1.UpdateOptions{})
	_, errPatch := cms.Patch(context.Background(), "a", types.MergePatchType, []byte(`{"metadata":{"finalizers":["mine"]}}`), metav1.PatchOptions{})

	assert.True(t, apierrors.IsInvalid(errUpdate), "got %v", errUpdate)
	assert.True(t, apierrors.IsInvalid(errPatch), "got %v", errPatch)
	assert.Equal(t, stored.GetResourceVersion(), mustGet(t, cms, "a").GetResourceVersion(), "nothing was written")
}

// TestFinalizerNamesWithoutADomainAreForCoreKindsOnly: core validation
// refuses a finalizer without a '/' that is not a standard one; a Lease
// (coordination validation) and a custom resource only ask for a qualified
// name.
// Diagram: API. kube-apiserver: core validation's validateKubeFinalizerName.
func TestFinalizerNamesWithoutADomainAreForCoreKindsOnly(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: sprockets, Kind: "Sprocket", Namespaced: true}))
	lease := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": map[string]any{"name": "l", "finalizers": []any{"mine"}}}}
	sprocket := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Sprocket",
		"metadata": map[string]any{"name": "s", "finalizers": []any{"mine"}}}}
	cm := configMap("default", "c")
	cm.SetFinalizers([]string{"mine"})

	_, errLease := s.Resource(leases).Namespace("default").Create(context.Background(), lease, metav1.CreateOptions{})
	_, errSprocket := s.Resource(sprockets).Namespace("default").Create(context.Background(), sprocket, metav1.CreateOptions{})
	_, errCM := s.Resource(configMaps).Namespace("default").Create(context.Background(), cm, metav1.CreateOptions{})

	assert.NoError(t, errLease)
	assert.NoError(t, errSprocket)
	assert.True(t, apierrors.IsInvalid(errCM), "got %v", errCM)
}

// TestLeaseDurationMustBePositive: a Lease of 0 or fewer seconds, or with a
// negative count of transitions, is 422, on create and on update.
// Diagram: API. kube-apiserver: coordination validation, ValidateLeaseSpec.
func TestLeaseDurationMustBePositive(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ls := s.Resource(leases).Namespace("default")
	lease := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"name": name}, "spec": spec}}
	}
	ok := mustCreate(t, ls, lease("ok", map[string]any{"leaseDurationSeconds": int64(15), "leaseTransitions": int64(0)}))

	_, errNegative := ls.Create(context.Background(), lease("neg", map[string]any{"leaseDurationSeconds": int64(-1)}), metav1.CreateOptions{})
	_, errZero := ls.Create(context.Background(), lease("zero", map[string]any{"leaseDurationSeconds": int64(0)}), metav1.CreateOptions{})
	_, errTransitions := ls.Create(context.Background(), lease("tr", map[string]any{"leaseTransitions": int64(-1)}), metav1.CreateOptions{})
	_, errPatch := ls.Patch(context.Background(), "ok", types.MergePatchType, []byte(`{"spec":{"leaseDurationSeconds":-5}}`), metav1.PatchOptions{})

	require.Error(t, errNegative)
	assert.Equal(t, `Lease.coordination.k8s.io "neg" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0`, errNegative.Error())
	assert.True(t, apierrors.IsInvalid(errZero), "got %v", errZero)
	require.Error(t, errTransitions)
	assert.Equal(t, `Lease.coordination.k8s.io "tr" is invalid: spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0`, errTransitions.Error())
	assert.True(t, apierrors.IsInvalid(errPatch), "got %v", errPatch)
	assert.Equal(t, ok.GetResourceVersion(), mustGet(t, ls, "ok").GetResourceVersion())
}
