package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// waitOutput returns once out contains want, failing the test after a
// deadline.
func waitOutput(t *testing.T, seen <-chan struct{}, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case <-seen:
		case <-deadline:
			t.Fatalf("no %q in the transcript:\n%s", want, out.String())
		}
	}
}

func startRemote(t *testing.T, args []string) (cancel func() error, out *syncBuffer, seen chan struct{}) {
	return startRemoteWith(t, args, env{getenv: func(string) string { return "" }})
}

// startRemoteWith runs the demo with args and e until the returned cancel.
func startRemoteWith(t *testing.T, args []string, e env) (cancel func() error, out *syncBuffer, seen chan struct{}) {
	seen = make(chan struct{}, 1)
	out = &syncBuffer{onWrite: func(string) {
		select {
		case seen <- struct{}{}:
		default:
		}
	}}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runWith(ctx, args, strings.NewReader(""), out, out, e) }()
	return func() error {
		stop()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after cancel")
			return nil
		}
	}, out, seen
}

// TestServerWithoutFooCRDNarratesOneResource runs demo --server against
// fakeapi over HTTP, which has no Foo resource: it narrates the informer of
// --resource (steps 1-6) and stops cleanly on cancel.
// Diagram: steps 1-6. client-go: none.
func TestServerWithoutFooCRDNarratesOneResource(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()

	stop, out, seen := startRemote(t, []string{"--server", hs.URL, "--resource", "configmaps", "--no-color"})
	waitOutput(t, seen, out, "configmaps: WATCH from rv")
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "hello", "namespace": "default"},
	}}
	_, err := srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").
		Create(context.Background(), cm, metav1.CreateOptions{})
	require.NoError(t, err)
	waitOutput(t, seen, out, "configmaps default/hello: handler called: OnAdd")

	require.NoError(t, stop())
	assert.NotContains(t, out.String(), "closed by the server", "the demo closed its own watch")
	assert.Contains(t, out.String(), "watch-only narration")
	assert.Contains(t, out.String(), "kubectl apply -f samplecontroller/testdata/foo-crd.yaml")
	assert.Contains(t, out.String(), "[2 → DeltaFIFO]  configmaps default/hello: Added delta queued")
	assert.Contains(t, out.String(), "Interrupted")
}

// TestServerWithFooCRDRunsTheFooController runs demo --server against a
// fakeapi that serves Foos: the sample controller reconciles a new Foo over
// HTTP and creates its Deployment, and the transcript shows it.
// Diagram: steps 1-9. client-go: none.
func TestServerWithFooCRDRunsTheFooController(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	require.NoError(t, sc.Register(srv))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()

	stop, out, seen := startRemote(t, []string{"--server", hs.URL, "--no-color"})
	waitOutput(t, seen, out, "Deployments: WATCH from rv")
	_, err := srv.Resource(sc.FoosGVR).Namespace("default").Create(context.Background(), newFoo("web", "web-nginx", 2), metav1.CreateOptions{})
	require.NoError(t, err)
	waitOutput(t, seen, out, "foo-controller: CREATE Deployment default/web-nginx")

	require.NoError(t, stop())
	dep, err := srv.Resource(sc.DeploymentsGVR).Namespace("default").Get(context.Background(), "web-nginx", metav1.GetOptions{})
	require.NoError(t, err)
	foo, err := srv.Resource(sc.FoosGVR).Namespace("default").Get(context.Background(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, metav1.IsControlledBy(dep.(*sc.Deployment), foo.(*sc.Foo)), "the Deployment is controlled by the Foo")
	assert.Contains(t, out.String(), "[6 handler]      foo-controller: OnAdd Foo default/web")
	assert.Contains(t, out.String(), "[9 lister get]   Foo default/web: rv")
	assert.Contains(t, out.String(), "Interrupted")
}

// TestServerUnreachableIsAnError points --server at a closed port.
// Diagram: step 1. client-go: none.
func TestServerUnreachableIsAnError(t *testing.T) {
	hs := httptest.NewServer(nil)
	url := hs.URL
	hs.Close()

	err := run(t.Context(), []string{"--server", url}, strings.NewReader(""), &syncBuffer{}, &syncBuffer{})

	require.Error(t, err)
	assert.Contains(t, err.Error(), "demo: cannot reach the API server")
}

// TestServerThatIsNotKubernetesIsSaidSo points --server at web servers that
// are not API servers (404 everywhere; an HTML page): the demo says so, and
// says nothing about a missing Foo CRD or kubectl.
// Diagram: step 1. client-go: discovery.
func TestServerThatIsNotKubernetesIsSaidSo(t *testing.T) {
	for name, handler := range map[string]http.HandlerFunc{
		"404": http.NotFound,
		"html": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>It works!</body></html>"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			hs := httptest.NewServer(handler)
			defer hs.Close()
			var out syncBuffer

			err := run(t.Context(), []string{"--server", hs.URL, "--no-color"}, strings.NewReader(""), &out, &out)

			require.Error(t, err)
			assert.Contains(t, err.Error(), "demo: "+hs.URL+" is not a Kubernetes API server")
			assert.NotContains(t, out.String()+err.Error(), "Foo CRD")
			assert.NotContains(t, out.String()+err.Error(), "kubectl apply")
		})
	}
}

// TestUnknownResourceFailsWithItsName: --resource naming a resource the
// server does not serve fails at once, naming it, listing what the group
// version has and how to see every resource, instead of retrying a 404
// list forever.
// Diagram: step 1. client-go: discovery.
func TestUnknownResourceFailsWithItsName(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()

	errResource := run(t.Context(), []string{"--server", hs.URL, "--resource", "nosuch"}, strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
	errGroup := run(t.Context(), []string{"--server", hs.URL, "--resource", "widgets.v9.example.com"}, strings.NewReader(""), &syncBuffer{}, &syncBuffer{})

	require.Error(t, errResource)
	assert.Contains(t, errResource.Error(), `has no resource "nosuch" in v1; it serves configmaps, events, namespaces there`)
	assert.Contains(t, errResource.Error(), "kubectl api-resources")
	require.Error(t, errGroup)
	assert.Contains(t, errGroup.Error(), `serves no API group version "example.com/v9", so there is no resource "widgets"`)
}

// TestBareControlPlaneSaysWhyFooStaysProgressing runs the Foo controller
// against a server with no Deployment controller (fakeapi over HTTP, no
// --simulate-deployments): the Deployment never gets a status, and after a
// while the demo says why the Foo stays Progressing and which flag helps.
// Diagram: steps 8-9. client-go: none (kube-controller-manager's role).
func TestBareControlPlaneSaysWhyFooStaysProgressing(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	require.NoError(t, sc.Register(srv))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()

	stop, out, seen := startRemoteWith(t, []string{"--server", hs.URL, "--no-color"}, env{getenv: func(string) string { return "" }, stall: 300 * time.Millisecond})
	waitOutput(t, seen, out, "Deployments: WATCH from rv")
	_, err := srv.Resource(sc.FoosGVR).Namespace("default").Create(context.Background(), newFoo("web", "web-nginx", 2), metav1.CreateOptions{})
	require.NoError(t, err)
	waitOutput(t, seen, out, "no Deployment controller seems to run on this server")

	require.NoError(t, stop())
	assert.Contains(t, out.String(), "Deployment default/web-nginx has had no status for its spec")
	assert.Contains(t, out.String(), "Run the demo with --simulate-deployments")
}

// TestSimulateDeploymentsMakesTheFooReady runs the Foo controller with
// --simulate-deployments against a server with no Deployment controller:
// the demo writes the Deployment's status, and the Foo becomes Ready.
// Diagram: steps 1-9. client-go: none (kube-controller-manager's role).
func TestSimulateDeploymentsMakesTheFooReady(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	require.NoError(t, sc.Register(srv))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()

	stop, out, seen := startRemoteWith(t, []string{"--server", hs.URL, "--no-color", "--simulate-deployments"}, env{getenv: func(string) string { return "" }, stall: 300 * time.Millisecond})
	waitOutput(t, seen, out, "Deployments: WATCH from rv")
	_, err := srv.Resource(sc.FoosGVR).Namespace("default").Create(context.Background(), newFoo("web", "web-nginx", 2), metav1.CreateOptions{})
	require.NoError(t, err)
	waitOutput(t, seen, out, "availableReplicas 2, Ready=True (Available)")

	require.NoError(t, stop())
	foo, err := srv.Resource(sc.FoosGVR).Namespace("default").Get(context.Background(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(2), foo.(*sc.Foo).Status.AvailableReplicas)
	assert.Contains(t, out.String(), "deployment-simulator: UPDATE /status Deployment default/web-nginx")
	assert.NotContains(t, out.String(), "no Deployment controller seems to run")
}

// newFoo is a Foo as a user would write it, in namespace default.
func newFoo(name, deploymentName string, replicas int32) *sc.Foo {
	return &sc.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       sc.FooSpec{DeploymentName: deploymentName, Replicas: &replicas},
	}
}
