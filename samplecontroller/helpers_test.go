package samplecontroller_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

var quiet = slog.New(slog.DiscardHandler)

const ns = "demo"

func int32p(n int32) *int32 { return &n }

// recorder is an Observer that keeps every Event.
type recorder struct {
	mu     sync.Mutex // guards events
	events []sc.Event
}

func (r *recorder) observe(e sc.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// all returns the events recorded so far that match keep (nil: all).
func (r *recorder) all(keep func(sc.Event) bool) []sc.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sc.Event
	for _, e := range r.events {
		if keep == nil || keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// lines renders the matching events.
func (r *recorder) lines(keep func(sc.Event) bool) []string {
	var out []string
	for _, e := range r.all(keep) {
		out = append(out, e.String())
	}
	return out
}

// writes returns the API writes of one controller that succeeded.
func (r *recorder) writes(ctrl string) []string {
	return r.lines(func(e sc.Event) bool { return e.Step == sc.StepAPIWrite && e.Controller == ctrl && e.Err == nil })
}

// reconciles counts the Reconciles of one controller.
func (r *recorder) reconciles(ctrl string) int {
	return len(r.all(func(e sc.Event) bool { return e.Step == sc.StepReconcile && e.Controller == ctrl }))
}

// reset forgets what was recorded so far.
func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = nil
}

// world is a fakeapi server with the two resources, and the sample
// controller running against it, observed by rec.
type world struct {
	srv  *fakeapi.Server
	foos *fakeapi.ResourceClient
	deps *fakeapi.ResourceClient
	rec  *recorder
	api  *countingAPI // the controller's handles
	sc   *sc.SampleController
}

// newWorld starts a fakeapi server (typed objects) with the resources
// registered, lets before fill it, then starts the sample controller with
// opts (Observer and Logger set here) until the end of the test.
func newWorld(t *testing.T, opts sc.Options, before ...func(w *world)) *world {
	t.Helper()
	return newWorldOn(t, fakeapi.Options{Scheme: sc.NewScheme()}, opts, before...)
}

// newWorldOn is newWorld on a server with the given options: without a
// Scheme, the server hands out unstructured objects, which the controller
// converts and the test helpers too.
func newWorldOn(t *testing.T, srvOpts fakeapi.Options, opts sc.Options, before ...func(w *world)) *world {
	t.Helper()
	srv := fakeapi.New(srvOpts)
	t.Cleanup(srv.Close)
	require.NoError(t, sc.Register(srv))
	w := &world{
		srv:  srv,
		foos: srv.Resource(sc.FoosGVR).Namespace(ns),
		deps: srv.Resource(sc.DeploymentsGVR).Namespace(ns),
		rec:  &recorder{},
		api:  &countingAPI{calls: map[string]int{}, failures: map[string]int{}},
	}
	for _, f := range before {
		f(w)
	}
	opts.Observer = func(e sc.Event) {
		w.rec.observe(e)
		t.Log(e.String())
	}
	opts.Logger = quiet
	var err error
	w.sc, err = sc.New(func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return countedResource{Resource: srv.Resource(gvr).Namespace(namespace), resource: gvr.Resource, api: w.api}
	}, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- w.sc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-result, "Run")
	})
	return w
}

// settle lets everything that can happen happen: in the bubble, each
// sleep lets the pending backoff timers of failed Requests fire (5ms,
// 10ms, ...), and Wait returns when every goroutine is blocked again.
func settle() {
	synctest.Wait()
	time.Sleep(time.Second)
	synctest.Wait()
}

func newFoo(name, deployment string, replicas *int32) *sc.Foo {
	return &sc.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       sc.FooSpec{DeploymentName: deployment, Replicas: replicas},
	}
}

func (w *world) createFoo(t *testing.T, foo *sc.Foo) *sc.Foo {
	t.Helper()
	out, err := w.foos.Create(context.Background(), foo, metav1.CreateOptions{})
	require.NoError(t, err)
	return typed(t, out, &sc.Foo{})
}

func (w *world) getFoo(t *testing.T, name string) *sc.Foo {
	t.Helper()
	out, err := w.foos.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return typed(t, out, &sc.Foo{})
}

func (w *world) getDeployment(t *testing.T, name string) *sc.Deployment {
	t.Helper()
	out, err := w.deps.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return typed(t, out, &sc.Deployment{})
}

// ready returns the Foo's Ready condition, or the zero condition.
func ready(foo *sc.Foo) metav1.Condition {
	if c := meta.FindStatusCondition(foo.Status.Conditions, sc.ConditionReady); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// checkConverged checks what must hold once the controllers are idle:
// every Foo not being deleted, with a valid spec, carries the finalizer;
// unless its Deployment is someone else's, that Deployment is controlled by
// it, runs its replicas, and its status reports them (via the simulator).
// Every Deployment controlled by a Foo belongs to an existing Foo.
func (w *world) checkConverged(t *testing.T) {
	t.Helper()
	list, err := w.foos.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	foos := map[string]*sc.Foo{}
	for _, item := range items {
		foo := typed(t, item, &sc.Foo{})
		foos[string(foo.UID)] = foo
		if foo.DeletionTimestamp != nil || ready(foo).Reason == sc.ReasonInvalidSpec {
			continue
		}
		assert.Contains(t, foo.Finalizers, sc.FinalizerName, "foo %s", foo.Name)
		if ready(foo).Reason == sc.ReasonResourceExists {
			continue
		}
		dep := w.getDeployment(t, foo.Spec.DeploymentName)
		assert.True(t, metav1.IsControlledBy(dep, foo), "foo %s controls its deployment", foo.Name)
		want := sc.DefaultReplicas
		if foo.Spec.Replicas != nil {
			want = *foo.Spec.Replicas
		}
		require.NotNil(t, dep.Spec.Replicas)
		assert.Equal(t, want, *dep.Spec.Replicas, "foo %s: deployment replicas", foo.Name)
		assert.Equal(t, want, dep.Status.AvailableReplicas, "foo %s: deployment status (simulator)", foo.Name)
		assert.Equal(t, want, foo.Status.AvailableReplicas, "foo %s: status.availableReplicas", foo.Name)
		assert.Equal(t, foo.Generation, foo.Status.ObservedGeneration, "foo %s: status.observedGeneration", foo.Name)
		assert.Equal(t, metav1.ConditionTrue, ready(foo).Status, "foo %s: Ready", foo.Name)
	}
	deps, err := w.deps.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err = meta.ExtractList(deps)
	require.NoError(t, err)
	for _, item := range items {
		dep := typed(t, item, &sc.Deployment{})
		if ref := metav1.GetControllerOf(dep); ref != nil && ref.Kind == "Foo" {
			assert.Contains(t, foos, string(ref.UID), "deployment %s: its controlling Foo exists", dep.Name)
		}
	}
}

// hasLine reports whether one of lines contains every part.
func hasLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

// typed returns obj as a T: itself if it is one, converted if it is
// unstructured.
func typed[T runtime.Object](t *testing.T, obj runtime.Object, into T) T {
	t.Helper()
	if out, ok := obj.(T); ok {
		return out
	}
	u, ok := obj.(*unstructured.Unstructured)
	require.True(t, ok, "got %T", obj)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into))
	return into
}

// unstructuredInt reads an integer field of an unstructured object.
func unstructuredInt(obj runtime.Object, fields ...string) (int64, bool, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return 0, false, nil
	}
	return unstructured.NestedInt64(u.Object, fields...)
}

// countingAPI counts the requests the controller sends through its
// handles, per "verb resource" ("get foos", "create deployments"), and
// fails the next calls of one when asked.
type countingAPI struct {
	mu       sync.Mutex     // guards the maps
	calls    map[string]int // requests sent, failed ones included
	failures map[string]int // how many of the next requests to fail
}

// count returns how many requests of verb on resource were sent.
func (a *countingAPI) count(verb, resource string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[verb+" "+resource]
}

// failNext fails the next n requests of verb on resource with a 500.
func (a *countingAPI) failNext(verb, resource string, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failures[verb+" "+resource] = n
}

// call counts a request and reports the injected error, if any.
func (a *countingAPI) call(verb, resource string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := verb + " " + resource
	a.calls[key]++
	if a.failures[key] > 0 {
		a.failures[key]--
		return apierrors.NewInternalError(errors.New("injected failure for " + key))
	}
	return nil
}

// countedResource passes every request to Resource after counting it.
type countedResource struct {
	sc.Resource
	resource string
	api      *countingAPI
}

func (r countedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := r.api.call("list", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.List(ctx, opts)
}

func (r countedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := r.api.call("watch", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.Watch(ctx, opts)
}

func (r countedResource) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	if err := r.api.call("get", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.Get(ctx, name, opts)
}

func (r countedResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	if err := r.api.call("create", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.Create(ctx, obj, opts)
}

func (r countedResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if err := r.api.call("update", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.Update(ctx, obj, opts)
}

func (r countedResource) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if err := r.api.call("update status", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.UpdateStatus(ctx, obj, opts)
}

func (r countedResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	if err := r.api.call("patch", r.resource); err != nil {
		return nil, err
	}
	return r.Resource.Patch(ctx, name, pt, data, opts)
}

func (r countedResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := r.api.call("delete", r.resource); err != nil {
		return err
	}
	return r.Resource.Delete(ctx, name, opts)
}
