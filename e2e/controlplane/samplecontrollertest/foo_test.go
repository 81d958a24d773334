package samplecontrollertest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

const fooYAML = `apiVersion: samplecontroller.k8s.io/v1alpha1
kind: Foo
metadata:
  name: %s
  namespace: %s
spec:
  deploymentName: %s
  replicas: %d
`

// available returns a condition for waitFor: the Foo reports n available
// replicas, Ready=True, for its current generation.
func available(n int32) func(*sc.Foo, bool) bool {
	return func(foo *sc.Foo, gone bool) bool {
		if gone {
			return false
		}
		ready := readyCondition(foo)
		return foo.Status.AvailableReplicas == n && ready != nil && ready.Status == metav1.ConditionTrue &&
			foo.Status.ObservedGeneration == foo.Generation
	}
}

// TestFooCreateScaleDeleteWithKubectl: a Foo created with kubectl apply
// converges: finalizer, a Deployment it controls (owner reference with its
// UID), status through the status subresource, kubectl's printer columns and
// a Normal Event Synced. A status in an ordinary update is dropped by the
// server. Scaling the Foo scales the Deployment. Deleting the Foo runs the
// finalizer: the Deployment is deleted first, then the Foo goes.
// Diagram: steps 6-9 against kube-apiserver. client-go: sample-controller against a cluster.
func TestFooCreateScaleDeleteWithKubectl(t *testing.T) {
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	runSampleController(t, ns)
	c := typedClient(t)
	foos, deps := c.Resource(sc.FoosGVR).Namespace(ns), c.Resource(sc.DeploymentsGVR).Namespace(ns)

	// Create.
	_, err := testenv.KubectlStdin(t, fmt.Sprintf(fooYAML, "example", ns, "web", 3), "apply", "-f", "-")
	require.NoError(t, err)
	foo := waitFor(t, foos, "example", "the Foo to report 3 available", available(3))
	dep, err := deps.Get(t.Context(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	d := dep.(*sc.Deployment)
	require.Len(t, d.OwnerReferences, 1)
	owner := d.OwnerReferences[0]
	assert.Equal(t, sc.FooGVK.GroupVersion().String(), owner.APIVersion)
	assert.Equal(t, "Foo", owner.Kind)
	assert.Equal(t, "example", owner.Name)
	assert.Equal(t, foo.UID, owner.UID)
	require.NotNil(t, owner.Controller)
	assert.True(t, *owner.Controller)
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, int32(3), d.Status.AvailableReplicas, "the DeploymentSimulator's status")
	assert.Contains(t, foo.Finalizers, sc.FinalizerName)
	assert.Equal(t, sc.ReasonAvailable, readyCondition(foo).Reason)
	table := testenv.Kubectl(t, "get", "foos", "-n", ns)
	assert.Regexp(t, `example\s+web\s+3\s+3\s+Available`, table, "kubectl's printer columns from the CRD")

	// Status only through the status subresource.
	testenv.Kubectl(t, "patch", "foo", "example", "-n", ns, "--type=merge", "-p", `{"status":{"availableReplicas":42}}`)
	after := getFoo(t, ns, "example")
	assert.Equal(t, int32(3), after.Status.AvailableReplicas, "a status in the main resource is ignored")
	assert.Equal(t, foo.Generation, after.Generation)

	// Events.
	var synced []event
	for _, e := range events(t, ns) {
		if e.InvolvedObject.Kind == "Foo" && e.InvolvedObject.Name == "example" && e.Reason == "Synced" {
			synced = append(synced, e)
		}
	}
	require.NotEmpty(t, synced, "a Normal Event Synced on the Foo")
	assert.Equal(t, "Normal", synced[0].Type)
	assert.Equal(t, sc.EventSource, synced[0].Source.Component)
	assert.Contains(t, testenv.Kubectl(t, "get", "events", "-n", ns), "foo/example")

	// Scale.
	testenv.Kubectl(t, "patch", "foo", "example", "-n", ns, "--type=merge", "-p", `{"spec":{"replicas":5}}`)
	waitFor(t, foos, "example", "the Foo to report 5 available", available(5))
	dep, err = deps.Get(t.Context(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(5), *dep.(*sc.Deployment).Spec.Replicas)

	// Delete: watch both, to see the order of the deletions.
	order := watchDeletions(t, c, ns)
	testenv.Kubectl(t, "delete", "foo", "example", "-n", ns, "--wait=false")
	waitFor(t, foos, "example", "the Foo to go", func(_ *sc.Foo, gone bool) bool { return gone })
	_, err = deps.Get(t.Context(), "web", metav1.GetOptions{})
	assert.True(t, isNotFound(err), "the finalizer deleted the Deployment: %v", err)
	deletions := order(2)
	require.Len(t, deletions, 2, "%v", deletions)
	assert.Equal(t, "deployments", deletions[0].resource, "the Deployment goes first: %v", deletions)
	assert.Equal(t, "foos", deletions[1].resource)
	assert.True(t, rvLess(t, deletions[0].rv, deletions[1].rv))
}

// deletion is one DELETED watch event.
type deletion struct{ resource, name, rv string }

// watchDeletions watches Foos and Deployments in ns from now on. The function
// it returns waits (up to wait) until n deletions have been seen, stops the
// watches, and returns the deletions ordered by resourceVersion.
func watchDeletions(t *testing.T, c *client.Client, ns string) func(n int) []deletion {
	t.Helper()
	var (
		mu   sync.Mutex // guards seen
		seen []deletion
	)
	changed := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for _, gvr := range []schema.GroupVersionResource{sc.FoosGVR, sc.DeploymentsGVR} {
		res := c.Resource(gvr).Namespace(ns)
		list, err := res.List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		lm, err := meta.ListAccessor(list)
		require.NoError(t, err)
		w, err := res.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.GetResourceVersion()})
		require.NoError(t, err)
		wg.Go(func() {
			for ev := range w.ResultChan() {
				if ev.Type != watch.Deleted {
					continue
				}
				m, err := meta.Accessor(ev.Object)
				if err != nil {
					continue
				}
				mu.Lock()
				seen = append(seen, deletion{gvr.Resource, m.GetName(), m.GetResourceVersion()})
				mu.Unlock()
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		})
	}
	return func(n int) []deletion {
		deadline := time.NewTimer(wait)
		defer deadline.Stop()
		for {
			mu.Lock()
			got := len(seen)
			mu.Unlock()
			if got >= n {
				break
			}
			select {
			case <-changed:
				continue
			case <-deadline.C:
			}
			break
		}
		cancel()
		wg.Wait()
		sort.Slice(seen, func(i, j int) bool { return rvLess(t, seen[i].rv, seen[j].rv) })
		return seen
	}
}
