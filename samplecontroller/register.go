package samplecontroller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
)

// The API groups, resources and kinds of Foo and Deployment.
var (
	// FooGroupVersion is the API group and version of Foo, the group of
	// testdata/foo-crd.yaml.
	FooGroupVersion = schema.GroupVersion{Group: "samplecontroller.k8s.io", Version: "v1alpha1"}
	// FoosGVR is the Foo resource.
	FoosGVR = FooGroupVersion.WithResource("foos")
	// FooGVK is the Foo kind, as owner references name it.
	FooGVK = FooGroupVersion.WithKind("Foo")

	// DeploymentGroupVersion is apps/v1.
	DeploymentGroupVersion = schema.GroupVersion{Group: "apps", Version: "v1"}
	// DeploymentsGVR is the Deployment resource.
	DeploymentsGVR = DeploymentGroupVersion.WithResource("deployments")
	// DeploymentGVK is the Deployment kind.
	DeploymentGVK = DeploymentGroupVersion.WithKind("Deployment")
)

// FooResource and DeploymentResource describe the two resources for
// fakeapi.Server.Register: both namespaced, both with a status subresource,
// like the Foo CRD and the real Deployment. Their Go types give fakeapi
// their OpenAPI schemas (kubectl explain foo.spec), their strategic merge
// patch rules and their known fields (kubectl create -f with validation).
var (
	FooResource = fakeapi.ResourceInfo{
		GVR: FoosGVR, Kind: "Foo", ListKind: "FooList", Singular: "foo",
		Namespaced: true, HasStatus: true, Object: &Foo{},
	}
	DeploymentResource = fakeapi.ResourceInfo{
		GVR: DeploymentsGVR, Kind: "Deployment", ListKind: "DeploymentList", Singular: "deployment",
		Namespaced: true, HasStatus: true, ShortNames: []string{"deploy"}, Object: &Deployment{},
	}
)

// AddToScheme registers Foo, FooList, Deployment and DeploymentList in
// scheme, so that a fakeapi.Server or a client.Client built with it returns
// them typed.
//
// client-go: sample-controller's generated AddToScheme, and
// k8s.io/api/apps/v1.AddToScheme.
func AddToScheme(scheme *runtime.Scheme) error {
	if scheme == nil {
		return fmt.Errorf("samplecontroller: AddToScheme: scheme is nil")
	}
	scheme.AddKnownTypes(FooGroupVersion, &Foo{}, &FooList{})
	scheme.AddKnownTypes(DeploymentGroupVersion, &Deployment{}, &DeploymentList{})
	return nil
}

// NewScheme returns a new scheme with AddToScheme's types: the one to give
// fakeapi.Options.Scheme or client.New.
func NewScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	_ = AddToScheme(scheme) // cannot fail: the scheme is not nil
	return scheme
}

// Register registers FooResource and DeploymentResource on an in-process
// fakeapi server.
func Register(srv *fakeapi.Server) error {
	for _, info := range []fakeapi.ResourceInfo{FooResource, DeploymentResource} {
		if err := srv.Register(info); err != nil {
			return fmt.Errorf("samplecontroller: %w", err)
		}
	}
	return nil
}
