package samplecontroller_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestObserverNarratesOneFooThroughSteps6To9: the Observer sees a new Foo
// cross the bottom of the diagram, one line per step, in order: the
// informer's notification reaches the handler (6), which enqueues its key
// (7); a worker gets the key (8), reads the Foo from the cache (9), adds
// the finalizer, looks for the Deployment (9), creates it, writes the
// status, and the Reconcile ends.
// Diagram: steps 6, 7, 8, 9. client-go: sample-controller controller.go (enqueueFoo, processNextWorkItem, syncHandler).
func TestObserverNarratesOneFooThroughSteps6To9(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{})
		settle()

		w.createFoo(t, newFoo("example", "web", int32p(3)))
		settle()

		lines := w.rec.lines(func(e sc.Event) bool {
			switch e.Step {
			case sc.StepHandler:
				return e.Resource == "foos" && e.Verb == "add"
			case sc.StepEnqueue:
				return e.Detail == ""
			}
			return true
		})
		end := 0
		for end < len(lines) && !strings.HasPrefix(lines[end], "[reconcile]") {
			end++
		}
		require.Less(t, end, len(lines))
		assert.Equal(t, []string{
			"[6 handler] foo: add foos demo/example",
			"[7 enqueue] foo: demo/example",
			"[8 get key] foo: demo/example",
			"[9 lister get] foo: foos demo/example found",
			"[api] foo: patch foos demo/example: add finalizer samplecontroller.k8s.io/cleanup",
			"[9 lister get] foo: deployments demo/web not found",
			"[api] foo: create deployments demo/web: replicas 3, controlled by foo example",
			"[api] foo: update status foos demo/example: availableReplicas 0, Ready=False (Progressing)",
			"[reconcile] foo: demo/example done",
		}, lines[:end+1])
	})
}

// TestEventStringRendersEachStep: every kind of Event renders as the one
// line a narrator prints.
// Diagram: steps 6-9. client-go: none.
func TestEventStringRendersEachStep(t *testing.T) {
	req := reqFor("example")
	for _, tc := range []struct {
		event sc.Event
		want  string
	}{
		{sc.Event{Step: sc.StepHandler, Controller: "foo", Resource: "foos", Key: "demo/example", Verb: "update", Dropped: true, Detail: "GenerationChangedPredicate"},
			"[6 handler] foo: update foos demo/example, dropped by GenerationChangedPredicate"},
		{sc.Event{Step: sc.StepEnqueue, Controller: "foo", Request: req, Detail: "owner of deployments demo/web"},
			"[7 enqueue] foo: demo/example (owner of deployments demo/web)"},
		{sc.Event{Step: sc.StepGetKey, Controller: "foo", Request: req}, "[8 get key] foo: demo/example"},
		{sc.Event{Step: sc.StepListerGet, Controller: "foo", Resource: "deployments", Key: "demo/web", Verb: "not found"},
			"[9 lister get] foo: deployments demo/web not found"},
		{sc.Event{Step: sc.StepAPIWrite, Controller: "foo", Resource: "deployments", Key: "demo/web", Verb: "create", Detail: "replicas 1", Err: errors.New("boom")},
			"[api] foo: create deployments demo/web: replicas 1 failed: boom"},
		{sc.Event{Step: sc.StepReconcile, Controller: "foo", Request: req}, "[reconcile] foo: demo/example done"},
		{sc.Event{Step: sc.StepReconcile, Controller: "foo", Request: req, Result: controller.Result{RequeueAfter: time.Minute}},
			"[reconcile] foo: demo/example done, again in 1m0s"},
		{sc.Event{Step: sc.StepReconcile, Controller: "foo", Request: req, Err: errors.New("boom")},
			"[reconcile] foo: demo/example failed: boom"},
		{sc.Event{Step: sc.StepReconcile, Controller: "foo", Request: req, Err: controller.TerminalError(errors.New("bad spec"))},
			"[reconcile] foo: demo/example failed, not retried: terminal error: bad spec"},
		{sc.Event{Step: sc.StepBackoff, Controller: "foo", Request: req, Delay: 20 * time.Millisecond, Failures: 3},
			"[backoff] foo: demo/example retried in 20ms (failure 3 in a row)"},
	} {
		assert.Equal(t, tc.want, tc.event.String())
	}
}

// TestRunsWithoutObserver: with no Observer (and no simulator) New wires the
// plain handlers and predicates, and the controller works the same: the
// Deployment is created.
// Diagram: steps 6-9. client-go: controller-runtime builder (For, Owns).
func TestRunsWithoutObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
		defer srv.Close()
		require.NoError(t, sc.Register(srv))
		c, err := sc.New(func(gvr schema.GroupVersionResource, ns string) sc.Resource {
			return srv.Resource(gvr).Namespace(ns)
		}, sc.Options{Logger: quiet})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()

		_, err = srv.Resource(sc.FoosGVR).Namespace(ns).Create(ctx, newFoo("example", "web", int32p(2)), metav1.CreateOptions{})
		require.NoError(t, err)
		synctest.Wait()

		out, err := srv.Resource(sc.DeploymentsGVR).Namespace(ns).Get(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(2), *out.(*sc.Deployment).Spec.Replicas)
		assert.GreaterOrEqual(t, c.FooController().Counts().Success, int64(1))
		cancel()
		assert.NoError(t, <-done)
		assert.Error(t, c.Run(context.Background()), "Run twice")
	})
}

// TestNewRejectsBadInput: a nil API, an API that returns no handle, and a
// negative resync period are errors, not panics.
// Diagram: none. client-go: none.
func TestNewRejectsBadInput(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	good := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return srv.Resource(gvr).Namespace(ns) }

	_, errNil := sc.New(nil, sc.Options{})
	_, errNoHandle := sc.New(func(schema.GroupVersionResource, string) sc.Resource { return nil }, sc.Options{})
	_, errResync := sc.New(good, sc.Options{ResyncPeriod: -time.Second})

	assert.ErrorContains(t, errNil, "samplecontroller: api is nil")
	assert.ErrorContains(t, errNoHandle, "samplecontroller: api returned no handle for foos")
	assert.ErrorContains(t, errResync, "samplecontroller:")
	assert.Error(t, sc.AddToScheme(nil))
}

// TestConvergesOverHTTPWithUnstructuredClient: the same controller against
// fakeapi's HTTP API, through client.Client built without a scheme, so
// every object arrives unstructured and the controller converts it. The
// Foo converges: Deployment created, status reported by the simulator.
// Real sockets: the test waits on the Observer with a deadline.
// Diagram: steps 1-9 over HTTP. client-go: dynamic client + typed listers.
func TestConvergesOverHTTPWithUnstructuredClient(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	require.NoError(t, sc.Register(srv))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	cfg, err := client.ConfigFromURL(hs.URL)
	require.NoError(t, err)
	cfg.Logger = quiet
	cl, err := client.New(cfg, nil)
	require.NoError(t, err)
	available := make(chan struct{})
	var once sync.Once
	c, err := sc.New(func(gvr schema.GroupVersionResource, ns string) sc.Resource {
		return cl.Resource(gvr).Namespace(ns)
	}, sc.Options{DeploymentSimulator: true, Logger: quiet, Observer: func(e sc.Event) {
		if e.Step == sc.StepAPIWrite && e.Err == nil && strings.Contains(e.Detail, "Ready=True (Available)") {
			once.Do(func() { close(available) })
		}
	}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	defer func() {
		cancel()
		assert.NoError(t, <-done)
	}()

	_, err = cl.Resource(sc.FoosGVR).Namespace(ns).Create(ctx, newFoo("example", "web", int32p(2)), metav1.CreateOptions{})
	require.NoError(t, err)
	select {
	case <-available:
	case <-time.After(10 * time.Second):
		t.Fatal("the Foo did not become available within 10s")
	}

	out, err := cl.Resource(sc.DeploymentsGVR).Namespace(ns).Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	replicas, _, _ := unstructuredInt(out, "spec", "replicas")
	assert.Equal(t, int64(2), replicas)
	t.Logf("over HTTP with an unstructured client: the Foo became Ready=True (Available); Deployment web has %d replicas", replicas)
}
