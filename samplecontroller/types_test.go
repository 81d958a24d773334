package samplecontroller_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestDeepCopySharesNothing: every pointer, slice and map of a deep copy
// is its own: changing the copy leaves the original as it was. That is
// what makes "DeepCopy the cached object, then modify it" safe.
// Diagram: step 9 (never mutate the cache). client-go: generated zz_generated.deepcopy.go.
func TestDeepCopySharesNothing(t *testing.T) {
	foo := &sc.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "f", Labels: map[string]string{"a": "b"}, Finalizers: []string{"x"}},
		Spec:       sc.FooSpec{DeploymentName: "web", Replicas: int32p(2)},
		Status:     sc.FooStatus{Conditions: []metav1.Condition{{Type: "Ready", Status: "True"}}},
	}
	dep := &sc.Deployment{
		Spec: sc.DeploymentSpec{
			Replicas: int32p(2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: sc.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec:       sc.PodSpec{Containers: []sc.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
	fooBefore, depBefore := foo.DeepCopy(), dep.DeepCopy()

	f := foo.DeepCopyObject().(*sc.Foo)
	*f.Spec.Replicas = 9
	f.Labels["a"] = "changed"
	f.Finalizers[0] = "changed"
	f.Status.Conditions[0].Status = "False"
	d := dep.DeepCopyObject().(*sc.Deployment)
	*d.Spec.Replicas = 9
	d.Spec.Selector.MatchLabels["app"] = "changed"
	d.Spec.Template.Labels["app"] = "changed"
	d.Spec.Template.Spec.Containers[0].Image = "changed"
	fl := (&sc.FooList{Items: []sc.Foo{*foo}}).DeepCopyObject().(*sc.FooList)
	*fl.Items[0].Spec.Replicas = 9
	dl := (&sc.DeploymentList{Items: []sc.Deployment{*dep}}).DeepCopyObject().(*sc.DeploymentList)
	dl.Items[0].Spec.Selector.MatchLabels["app"] = "changed"

	t.Logf("every field of the copies changed; the originals still have replicas %d, label a=%s, finalizer %s, image %s", *foo.Spec.Replicas, foo.Labels["a"], foo.Finalizers[0], dep.Spec.Template.Spec.Containers[0].Image)
	assert.Equal(t, fooBefore, foo)
	assert.Equal(t, depBefore, dep)
	assert.Nil(t, (*sc.Foo)(nil).DeepCopy())
	assert.Nil(t, (*sc.Deployment)(nil).DeepCopy())
}

// TestResourcesComeBackTypedFromFakeapi: with NewScheme, fakeapi hands out
// *Foo and *Deployment, and its lists are *FooList and *DeploymentList; the
// status subresource keeps spec writes out of status and status writes out
// of spec.
// Diagram: step 1. client-go: typed clientsets.
func TestResourcesComeBackTypedFromFakeapi(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
		defer srv.Close()
		require.NoError(t, sc.Register(srv))
		foos := srv.Resource(sc.FoosGVR).Namespace(ns)
		ctx := context.Background()

		out, err := foos.Create(ctx, &sc.Foo{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Status: sc.FooStatus{AvailableReplicas: 5}}, metav1.CreateOptions{})
		require.NoError(t, err)
		list, err := foos.List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		deps, err := srv.Resource(sc.DeploymentsGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)

		foo := out.(*sc.Foo)
		t.Logf("fakeapi with the sample scheme: Create returns a %T of kind %s with availableReplicas %d (create ignores status); List returns a %T", foo, foo.Kind, foo.Status.AvailableReplicas, list)
		assert.Equal(t, int32(0), foo.Status.AvailableReplicas, "create ignores status")
		assert.Equal(t, "Foo", foo.Kind)
		assert.Len(t, list.(*sc.FooList).Items, 1)
		assert.IsType(t, &sc.DeploymentList{}, deps)
		assert.Equal(t, []fakeapi.ResourceInfo{sc.FooResource, sc.DeploymentResource}, filterInfos(srv.Resources()))
	})
}

func filterInfos(infos []fakeapi.ResourceInfo) []fakeapi.ResourceInfo {
	var out []fakeapi.ResourceInfo
	for _, want := range []string{"foos", "deployments"} {
		for _, info := range infos {
			if info.GVR.Resource == want {
				out = append(out, info)
			}
		}
	}
	return out
}

// TestCRDManifestMatchesTypes: testdata/foo-crd.yaml, the CRD a real cluster
// needs, names the group, version, kinds and scope the Go code uses, has a
// status subresource, defaults replicas to DefaultReplicas, declares
// exactly the JSON fields of FooSpec and FooStatus, and carries the
// api-approved.kubernetes.io annotation its protected group requires.
// Diagram: API. client-go: sample-controller artifacts/examples/crd.yaml.
func TestCRDManifestMatchesTypes(t *testing.T) {
	data, err := os.ReadFile("testdata/foo-crd.yaml")
	require.NoError(t, err)
	var crd crdManifest
	require.NoError(t, yaml.UnmarshalStrict(data, &crd))
	require.Len(t, crd.Spec.Versions, 1)
	version := crd.Spec.Versions[0]
	schema := version.Schema.OpenAPIV3Schema.Properties

	t.Logf("testdata/foo-crd.yaml: %s, group %s, version %s, kind %s, scope %s; spec fields %v, status fields %v", crd.Metadata.Name, crd.Spec.Group, version.Name, crd.Spec.Names.Kind, crd.Spec.Scope, schema["spec"].names(), schema["status"].names())
	assert.Equal(t, "apiextensions.k8s.io/v1", crd.APIVersion)
	assert.Equal(t, "CustomResourceDefinition", crd.Kind)
	assert.Equal(t, sc.FoosGVR.Resource+"."+sc.FoosGVR.Group, crd.Metadata.Name)
	assert.NotEmpty(t, crd.Metadata.Annotations["api-approved.kubernetes.io"],
		"a group under k8s.io is protected: a real API server refuses the CRD without the annotation")
	assert.Equal(t, sc.FooGroupVersion.Group, crd.Spec.Group)
	assert.Equal(t, sc.FooGroupVersion.Version, version.Name)
	assert.Equal(t, sc.FooResource.Kind, crd.Spec.Names.Kind)
	assert.Equal(t, sc.FooResource.ListKind, crd.Spec.Names.ListKind)
	assert.Equal(t, sc.FooResource.Singular, crd.Spec.Names.Singular)
	assert.Equal(t, sc.FoosGVR.Resource, crd.Spec.Names.Plural)
	assert.Equal(t, "Namespaced", crd.Spec.Scope)
	// A group under k8s.io is protected: a real API server refuses the CRD
	// unless this annotation is a link to the approving review or says "unapproved".
	assert.True(t, strings.HasSuffix(crd.Spec.Group, ".k8s.io"))
	assert.True(t, strings.HasPrefix(crd.Metadata.Annotations["api-approved.kubernetes.io"], "unapproved"),
		"annotations: %v", crd.Metadata.Annotations)
	assert.Contains(t, version.Subresources, "status")
	replicas := schema["spec"].Properties["replicas"]
	assert.Nil(t, replicas.Default, "the mutating webhook defaults replicas, so that its work can be seen")
	assert.Equal(t, 0, replicas.Extra["minimum"])
	assert.Equal(t, int(sc.MaxReplicas), replicas.Extra["maximum"])
	name := schema["spec"].Properties["deploymentName"]
	assert.Equal(t, `^[a-z0-9]$|^[a-z0-9][-a-z0-9]*[a-z0-9]$`, name.Extra["pattern"], "a DNS-1123 label, as validateFoo checks")
	assert.Equal(t, 63, name.Extra["maxLength"])
	rules, _ := schema["spec"].Extra["x-kubernetes-validations"].([]any)
	require.Len(t, rules, 1, "the CEL transition rule on spec")
	assert.Contains(t, fmt.Sprint(rules[0]), "oldSelf.deploymentName")
	assert.Equal(t, jsonFields(sc.FooSpec{}), schema["spec"].names())
	assert.Equal(t, jsonFields(sc.FooStatus{}), schema["status"].names())
}

// crdManifest is the part of a CustomResourceDefinition the test reads.
type crdManifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec struct {
		Group string `yaml:"group"`
		Scope string `yaml:"scope"`
		Names struct {
			Kind     string `yaml:"kind"`
			ListKind string `yaml:"listKind"`
			Plural   string `yaml:"plural"`
			Singular string `yaml:"singular"`
		} `yaml:"names"`
		Versions []struct {
			Name                     string         `yaml:"name"`
			Served                   bool           `yaml:"served"`
			Storage                  bool           `yaml:"storage"`
			Subresources             map[string]any `yaml:"subresources"`
			AdditionalPrinterColumns []any          `yaml:"additionalPrinterColumns"`
			Schema                   struct {
				OpenAPIV3Schema crdSchema `yaml:"openAPIV3Schema"`
			} `yaml:"schema"`
		} `yaml:"versions"`
	} `yaml:"spec"`
}

// crdSchema is an OpenAPI schema node; only Properties and Default are read.
type crdSchema struct {
	Type       string               `yaml:"type"`
	Properties map[string]crdSchema `yaml:"properties"`
	Default    any                  `yaml:"default"`
	Extra      map[string]any       `yaml:",inline"`
}

func (s crdSchema) names() []string {
	var names []string
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// jsonFields returns the JSON names of a struct's fields, sorted.
func jsonFields(v any) []string {
	var names []string
	typ := reflect.TypeOf(v)
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
