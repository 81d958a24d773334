package samplecontrollertest

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// wait bounds every wait on the server or the controller.
const wait = 60 * time.Second

// typedClient is a client whose Foos and Deployments come back typed.
func typedClient(t *testing.T) *client.Client {
	return testenv.Client(t, sc.NewScheme())
}

// runSampleController runs the sample controller, with the
// DeploymentSimulator, in namespace ns until the test ends.
func runSampleController(t *testing.T, ns string) *sc.SampleController {
	t.Helper()
	c := typedClient(t)
	api := func(gvr schema.GroupVersionResource, ns string) sc.Resource { return c.Resource(gvr).Namespace(ns) }
	ctrl, err := sc.New(api, sc.Options{
		Namespace:           ns,
		DeploymentSimulator: true, // no kube-controller-manager on a bare control plane
		Logger:              slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the sample controller: %v", err)
			}
		case <-time.After(wait):
			t.Errorf("the sample controller did not stop within %v", wait)
		}
	})
	return ctrl
}

// waitFor waits until cond holds for the object name of res: it reads the
// object, then watches it, asking cond after every event. cond gets nil once
// the object is gone. It returns the object cond accepted (nil if gone).
func waitFor[T runtime.Object](t *testing.T, res *client.ResourceClient, name, what string, cond func(obj T, gone bool) bool) T {
	t.Helper()
	var zero T
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	for ctx.Err() == nil {
		list, err := res.List(ctx, metav1.ListOptions{FieldSelector: sel})
		require.NoError(t, err)
		items, err := meta.ExtractList(list)
		require.NoError(t, err)
		if len(items) == 0 && cond(zero, true) {
			return zero
		}
		if len(items) == 1 {
			if obj, ok := items[0].(T); ok && cond(obj, false) {
				return obj
			}
		}
		lm, err := meta.ListAccessor(list)
		require.NoError(t, err)
		w, err := res.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: lm.GetResourceVersion()})
		require.NoError(t, err)
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Deleted:
				if cond(zero, true) {
					w.Stop()
					return zero
				}
			case watch.Added, watch.Modified:
				if obj, ok := ev.Object.(T); ok && cond(obj, false) {
					w.Stop()
					return obj
				}
			}
		}
		// The watch ended (server timeout, or an error event): read again.
	}
	t.Fatalf("timed out after %v waiting for %s", wait, what)
	return zero
}

// getFoo reads a Foo from the server.
func getFoo(t *testing.T, ns, name string) *sc.Foo {
	t.Helper()
	obj, err := typedClient(t).Resource(sc.FoosGVR).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return obj.(*sc.Foo)
}

// isNotFound reports whether err says the object does not exist.
func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

// readyCondition returns the Foo's Ready condition, or nil.
func readyCondition(foo *sc.Foo) *metav1.Condition {
	return meta.FindStatusCondition(foo.Status.Conditions, sc.ConditionReady)
}

// event is the part of a core v1 Event these tests read.
type event struct {
	Type           string `json:"type"`
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	Count          int    `json:"count"`
	InvolvedObject struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"involvedObject"`
	Source struct {
		Component string `json:"component"`
	} `json:"source"`
}

// events returns the Events of namespace ns, as kubectl get events -o json
// shows them.
func events(t *testing.T, ns string) []event {
	t.Helper()
	out := testenv.Kubectl(t, "get", "events", "-n", ns, "-o", "json")
	var list struct {
		Items []event `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	return list.Items
}

// rvLess reports whether resourceVersion a is older than b. kube-apiserver's
// resourceVersions are etcd revisions, increasing integers: a test of this
// one server may compare them; a client never should.
func rvLess(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := strconv.ParseInt(a, 10, 64)
	require.NoError(t, err)
	y, err := strconv.ParseInt(b, 10, 64)
	require.NoError(t, err)
	return x < y
}
