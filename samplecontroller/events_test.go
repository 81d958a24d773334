package samplecontroller_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// kubeEvent is what a test checks of a v1 Event.
type kubeEvent struct {
	Type, Reason, Message string
	Count                 int64
	Kind, Name            string // the involved object
	Component             string // the source
}

// events returns the v1 Events of the test namespace, read back from the
// server as `kubectl get events` would.
func (w *world) events(t *testing.T) []kubeEvent {
	t.Helper()
	list, err := w.srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	var out []kubeEvent
	for _, item := range items {
		u, ok := item.(*unstructured.Unstructured)
		require.True(t, ok, "got %T", item)
		str := func(fields ...string) string { s, _, _ := unstructured.NestedString(u.Object, fields...); return s }
		count, _, _ := unstructured.NestedInt64(u.Object, "count")
		out = append(out, kubeEvent{
			Type: str("type"), Reason: str("reason"), Message: str("message"), Count: count,
			Kind: str("involvedObject", "kind"), Name: str("involvedObject", "name"), Component: str("source", "component"),
		})
	}
	return out
}

// withReason returns the events of one reason.
func withReason(events []kubeEvent, reason string) []kubeEvent {
	var out []kubeEvent
	for _, e := range events {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// writingReconciles counts the Foo controller's Reconciles in which at
// least one write succeeded (the controller has one worker, so its steps
// do not interleave).
func (r *recorder) writingReconciles() int {
	n, wrote := 0, false
	for _, e := range r.all(func(e sc.Event) bool { return e.Controller == sc.FooControllerName }) {
		switch {
		case e.Step == sc.StepGetKey:
			wrote = false
		case e.Step == sc.StepAPIWrite && e.Err == nil:
			wrote = true
		case e.Step == sc.StepReconcile && wrote:
			n++
		}
	}
	return n
}

// TestEventWarnsOfDeploymentItDoesNotControlAndCountsRepeats: a Deployment
// of the wanted name is someone else's. Every retry records the Warning
// ErrResourceExists on the Foo again, and the repeats become the count of
// one Event, not one Event each. No SyncFailed repeats the same news. Once
// the obstacle is gone, the Foo converges and a Normal Synced says so.
// Diagram: step 9, then an Event. client-go: sample-controller syncHandler (recorder.Event ErrResourceExists), tools/record EventCorrelator.
func TestEventWarnsOfDeploymentItDoesNotControlAndCountsRepeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true}, func(w *world) {
			_, err := w.deps.Create(context.Background(), &sc.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
		})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		time.Sleep(time.Minute)
		synctest.Wait()

		events := w.events(t)
		exists := withReason(events, sc.EventReasonErrResourceExists)
		require.Len(t, exists, 1, "repeats are one Event: %v", events)
		assert.Equal(t, kubeEvent{
			Type: "Warning", Reason: "ErrResourceExists",
			Message: `Deployment "web" already exists and is not controlled by Foo "example"`,
			Count:   w.sc.FooController().Counts().Errors,
			Kind:    "Foo", Name: "example", Component: "sample-controller",
		}, exists[0], "one count per failed Reconcile")
		assert.GreaterOrEqual(t, exists[0].Count, int64(10), "a minute of retries")
		assert.Empty(t, withReason(events, sc.EventReasonSyncFailed), "the Warning already says why")
		assert.Empty(t, withReason(events, sc.EventReasonSynced))

		require.NoError(t, w.deps.Delete(context.Background(), "web", metav1.DeleteOptions{}))
		time.Sleep(2 * time.Minute)
		synctest.Wait()

		w.checkConverged(t)
		synced := withReason(w.events(t), sc.EventReasonSynced)
		require.Len(t, synced, 1)
		assert.Equal(t, "Normal", synced[0].Type)
		assert.Equal(t, sc.EventMessageSynced, synced[0].Message)
	})
}

// TestEventWarnsOfInvalidSpec: a Foo without spec.deploymentName gets one
// Warning InvalidSpec that says what is wrong, as its Ready condition does,
// and no SyncFailed or Synced; after the fix, a Synced.
// Diagram: step 9, then an Event. client-go: tools/record.EventRecorder.Event.
func TestEventWarnsOfInvalidSpec(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "", int32p(2)))
		time.Sleep(time.Hour)
		synctest.Wait()

		events := w.events(t)
		require.Len(t, events, 1, "%v", events)
		assert.Equal(t, "Warning", events[0].Type)
		assert.Equal(t, sc.EventReasonInvalidSpec, events[0].Reason)
		assert.Equal(t, ready(w.getFoo(t, "example")).Message, events[0].Message)
		assert.Contains(t, events[0].Message, "spec.deploymentName: Required value")
		assert.Equal(t, int64(1), events[0].Count)

		foo := w.getFoo(t, "example")
		foo.Spec.DeploymentName = "web"
		_, err := w.foos.Update(context.Background(), foo, metav1.UpdateOptions{})
		require.NoError(t, err)
		settle()

		w.checkConverged(t)
		assert.Len(t, withReason(w.events(t), sc.EventReasonSynced), 1)
		assert.Len(t, withReason(w.events(t), sc.EventReasonInvalidSpec), 1, "not recorded again")
	})
}

// TestSyncedEventOnlyWhenSomethingChanged: a Normal Synced is recorded by
// every Reconcile that wrote something (the finalizer, the Deployment, the
// status), counted on one Event; the Reconciles of a Foo already in sync
// (here every minute, from the Deployment informer's resync) record
// nothing, so a quiet controller does not fill the Events.
// Diagram: steps 6-9 (resync), no Event. client-go: sample-controller syncHandler (recorder.Event SuccessSynced, there on every sync).
func TestSyncedEventOnlyWhenSomethingChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true, ResyncPeriod: time.Minute})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()
		w.checkConverged(t)

		wrote := w.rec.writingReconciles()
		require.GreaterOrEqual(t, wrote, 2, "create, then the status the simulator reported")
		synced := withReason(w.events(t), sc.EventReasonSynced)
		require.Len(t, synced, 1)
		assert.Equal(t, kubeEvent{Type: "Normal", Reason: "Synced", Message: "Foo synced successfully",
			Count: int64(wrote), Kind: "Foo", Name: "example", Component: "sample-controller"}, synced[0])

		before := w.rec.reconciles(sc.FooControllerName)
		time.Sleep(10 * time.Minute)
		synctest.Wait()

		assert.GreaterOrEqual(t, w.rec.reconciles(sc.FooControllerName)-before, 9, "a Reconcile a minute")
		assert.Equal(t, wrote, w.rec.writingReconciles(), "in sync: nothing written")
		assert.Equal(t, synced, withReason(w.events(t), sc.EventReasonSynced), "and no Event")
		assert.Len(t, w.events(t), 1)
	})
}

// TestEventWarnsOfReconcileError: the API fails the Deployment's create
// twice. Each failed Reconcile records a Warning SyncFailed carrying the
// error, the same both times, so one Event counts 2; the third try
// succeeds.
// Diagram: step 9, an API write fails, an Event. client-go: tools/record.EventRecorder (an Event on every reconcile error).
func TestEventWarnsOfReconcileError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true}, func(w *world) {
			w.createFoo(t, newFoo("example", "web", int32p(1)))
			w.api.failNext("create", "deployments", 2)
		})
		settle()

		w.checkConverged(t)
		failed := withReason(w.events(t), sc.EventReasonSyncFailed)
		require.Len(t, failed, 1)
		assert.Equal(t, "Warning", failed[0].Type)
		assert.Equal(t, int64(2), failed[0].Count)
		assert.Contains(t, failed[0].Message, "injected failure for create deployments")
		assert.Len(t, withReason(w.events(t), sc.EventReasonSynced), 1)
	})
}

// TestReadsComeFromTheCacheNotTheAPI: the reconcilers read every Foo and
// Deployment through the Manager's client, which serves them from the
// informers' caches: while a Foo is created, converges and is scaled, the
// API sees no Get at all, one List per resource (each informer's initial
// list) and the writes.
// Diagram: step 9 (Get from the cache). client-go: controller-runtime's split client (reads from the cache, writes to the API).
func TestReadsComeFromTheCacheNotTheAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()
		foo := w.getFoo(t, "example")
		foo.Spec.Replicas = int32p(5)
		_, err := w.foos.Update(context.Background(), foo, metav1.UpdateOptions{})
		require.NoError(t, err)
		settle()
		w.checkConverged(t)

		reads := len(w.rec.all(func(e sc.Event) bool { return e.Step == sc.StepListerGet }))
		assert.GreaterOrEqual(t, reads, 8, "the reconcilers read")
		assert.Zero(t, w.api.count("get", "foos"), "no Foo Get reached the API")
		assert.Zero(t, w.api.count("get", "deployments"), "no Deployment Get reached the API")
		assert.Equal(t, 1, w.api.count("list", "foos"))
		assert.Equal(t, 1, w.api.count("list", "deployments"))
		assert.Equal(t, 1, w.api.count("patch", "deployments"), "scaled once")
		assert.GreaterOrEqual(t, w.api.count("update status", "foos"), 3, "the writes did")
	})
}

// TestEventsTableOverHTTPIsWhatKubectlGetEventsShows: the controller runs
// over HTTP against fakeapi's handler; a Foo meets someone else's
// Deployment; the Warning ErrResourceExists reaches the server, and the
// Table that `kubectl get events -n demo` asks for (the same Accept header)
// lists it: type, reason, object foo/example and the message. Real
// sockets: the test waits on a watch of the Events, with a deadline.
// Diagram: API (Events). client-go: kubectl get events (server-side Table).
func TestEventsTableOverHTTPIsWhatKubectlGetEventsShows(t *testing.T) {
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	events, err := srv.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace(ns).Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer events.Stop()
	_, err = cl.Resource(sc.DeploymentsGVR).Namespace(ns).Create(ctx, &sc.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	c, err := sc.New(func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
		return cl.Resource(gvr).Namespace(namespace)
	}, sc.Options{Namespace: ns, Logger: quiet})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- c.Run(runCtx) }()
	defer func() {
		stop()
		assert.NoError(t, <-stopped)
	}()
	foo := newFoo("example", "web", nil)
	foo.TypeMeta = metav1.TypeMeta{APIVersion: sc.FooGroupVersion.String(), Kind: "Foo"}
	_, err = cl.Resource(sc.FoosGVR).Namespace(ns).Create(ctx, foo, metav1.CreateOptions{})
	require.NoError(t, err)

	for warned := false; !warned; {
		select {
		case ev, ok := <-events.ResultChan():
			require.True(t, ok, "the events watch ended")
			if u, isU := ev.Object.(*unstructured.Unstructured); isU && ev.Type == watch.Added {
				reason, _, _ := unstructured.NestedString(u.Object, "reason")
				warned = reason == sc.EventReasonErrResourceExists
			}
		case <-ctx.Done():
			require.FailNow(t, "no ErrResourceExists Event within 10s")
		}
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/api/v1/namespaces/demo/events", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json") // kubectl get's
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var table metav1.Table
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&table))

	var columns []string
	for _, col := range table.ColumnDefinitions {
		columns = append(columns, col.Name)
	}
	assert.Equal(t, []string{"Last Seen", "Type", "Reason", "Object", "Message"}, columns)
	var warnings [][]any
	for _, row := range table.Rows {
		if len(row.Cells) == 5 && row.Cells[2] == sc.EventReasonErrResourceExists {
			warnings = append(warnings, row.Cells[1:])
		}
	}
	t.Logf("GET /api/v1/namespaces/demo/events as kubectl get events asks for it: columns %v", columns)
	for _, w := range warnings {
		t.Logf("   %v", w)
	}
	assert.Equal(t, [][]any{{"Warning", "ErrResourceExists", "foo/example",
		`Deployment "web" already exists and is not controlled by Foo "example"`}}, warnings)
}
