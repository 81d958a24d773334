package controllersuite

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/labs/grade"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

const ns = "demo"

// env is a fakeapi server with Foos and Deployments, and the sample
// controller running on it with the Reconciler under test and the
// DeploymentSimulator (which plays the Deployment controller: it reports
// every replica available).
type env struct {
	srv        *fakeapi.Server
	foos, deps *fakeapi.ResourceClient
	// log is what the controller wrote and how its Reconciles ended.
	log *controllerLog
}

// start makes the server, lets before fill it, and runs the controller
// until the behaviour ends.
func start(t *testing.T, impl Impl, before func(e *env)) *env {
	t.Helper()
	return startWith(t, impl, true, before)
}

// startWith is start, with or without the DeploymentSimulator: without
// it, no Deployment has an available replica until the behaviour says so.
func startWith(t *testing.T, impl Impl, simulator bool, before func(e *env)) *env {
	t.Helper()
	srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
	t.Cleanup(srv.Close)
	require.NoError(t, sc.Register(srv))
	e := &env{srv: srv, foos: srv.Resource(sc.FoosGVR).Namespace(ns), deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns),
		log: &controllerLog{}}
	if before != nil {
		before(e)
	}
	ctrl, err := sc.New(func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return recordingResource{Resource: srv.Resource(gvr).Namespace(namespace), resource: gvr.Resource, log: e.log}
	}, sc.Options{
		Namespace:           ns,
		DeploymentSimulator: simulator,
		Logger:              slog.New(slog.DiscardHandler),
		Reconciler:          impl.NewReconciler,
		Observer:            e.log.observe,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := grade.Go(t, func() { _ = ctrl.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		<-done
	})
	settle()
	return e
}

// settle lets the controllers work until they are idle, with time for a
// few retries of a failed Reconcile (backoff from 5ms).
func settle() {
	for range 3 {
		synctest.Wait()
		time.Sleep(time.Second)
	}
	synctest.Wait()
}

func int32p(n int32) *int32 { return &n }

func (e *env) createFoo(t *testing.T, name, deployment string, replicas *int32) *sc.Foo {
	t.Helper()
	out, err := e.foos.Create(context.Background(), &sc.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       sc.FooSpec{DeploymentName: deployment, Replicas: replicas},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	return as[*sc.Foo](t, out)
}

func (e *env) patchFoo(t *testing.T, name, patch string) {
	t.Helper()
	_, err := e.foos.Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	require.NoError(t, err)
}

func (e *env) foo(t *testing.T, name string) (*sc.Foo, bool) {
	t.Helper()
	out, err := e.foos.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(t, err)
	return as[*sc.Foo](t, out), true
}

func (e *env) deployment(t *testing.T, name string) (*sc.Deployment, bool) {
	t.Helper()
	out, err := e.deps.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(t, err)
	return as[*sc.Deployment](t, out), true
}

// mustDeployment returns Deployment name, failing the behaviour if it
// does not exist.
func (e *env) mustDeployment(t *testing.T, name string) *sc.Deployment {
	t.Helper()
	d, ok := e.deployment(t, name)
	require.True(t, ok, "no Deployment %s", name)
	return d
}

// as returns obj as a T: the server hands out typed objects.
func as[T runtime.Object](t *testing.T, obj runtime.Object) T {
	t.Helper()
	typed, ok := obj.(T)
	require.True(t, ok, "got %T", obj)
	return typed
}

// replicas is a Deployment's spec.replicas, nil counting as 1.
func replicas(d *sc.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// controllerOf returns the owner reference that marks d's controller.
func controllerOf(d *sc.Deployment) *metav1.OwnerReference {
	return metav1.GetControllerOf(d)
}
