package controllersuite

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/labs/grade"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// Impl is how an implementation plugs in.
type Impl struct {
	// NewReconciler returns the Foo controller's Reconciler. c is the
	// Manager's split client: Get and List read the cache, Create, Patch,
	// Update, UpdateStatus and Delete write to the API server. events
	// records Events on the Foos, as the sample controller's source
	// (samplecontroller.EventSource): the Manager's broadcaster writes them
	// to the API server's v1 events, where the behaviours read them. nil
	// means informerlab's own FooReconciler.
	NewReconciler func(c *manager.Client, events recorder.EventRecorder) controller.Reconciler
}

// Reference is informerlab's own implementation: the sample controller's
// FooReconciler (a nil NewReconciler keeps it).
var Reference = Impl{}

const (
	docReconcile = "docs/samplecontroller.md#one-foo-step-by-step"
	docLevel     = "docs/controller.md#level-versus-edge-triggering"
	docDeletion  = "docs/controller.md#finalizers"
	docOutcomes  = "docs/controller.md#the-outcome-table"
)

// Behaviours returns the graded behaviours of a Foo → Deployment
// controller, seen from the API: what the Deployments and the Foos' status
// look like once the controller is idle.
func Behaviours(impl Impl) []grade.Behaviour {
	inBubble := func(t *testing.T, before func(*env), fn func(t *testing.T, e *env)) {
		t.Helper()
		grade.Bubble(t, func(t *testing.T) { fn(t, start(t, impl, before)) })
	}
	return append([]grade.Behaviour{
		{
			Name: "CreatesTheDeploymentItNames",
			Want: "a new Foo gets a Deployment named spec.deploymentName in its namespace, running spec.replicas pods",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(3))
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(3), replicas(d))
				})
			},
		},
		{
			Name: "TheFooControlsItsDeployment",
			Want: "the Deployment carries a controller owner reference to its Foo (kind Foo, the Foo's name and UID, controller: true)",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					foo := e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					d := e.mustDeployment(t, "shop-web")
					owner := controllerOf(d)
					require.NotNil(t, owner, "no controller owner reference")
					assert.Equal(t, "Foo", owner.Kind)
					assert.Equal(t, sc.FooGVK.GroupVersion().String(), owner.APIVersion)
					assert.Equal(t, "shop", owner.Name)
					assert.Equal(t, foo.UID, owner.UID)
				})
			},
		},
		{
			Name: "ReplicasDefaultToOne",
			Want: "a Foo without spec.replicas gets a Deployment of 1 replica",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", nil)
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(1), replicas(d))
				})
			},
		},
		{
			Name: "ScalesWithTheFoo",
			Want: "changing the Foo's spec.replicas changes its Deployment's spec.replicas to match",
			Doc:  docLevel,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					e.patchFoo(t, "shop", `{"spec":{"replicas":4}}`)
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(4), replicas(d))
				})
			},
		},
		{
			Name: "RecreatesADeletedDeployment",
			Want: "when someone deletes the Foo's Deployment, the controller creates it again (the Deployment's events must reach the Foo)",
			Doc:  docLevel,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					require.NoError(t, e.deps.Delete(context.Background(), "shop-web", metav1.DeleteOptions{}))
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(2), replicas(d))
				})
			},
		},
		{
			Name: "StatusReportsAvailableReplicas",
			Want: "the Foo's status.availableReplicas follows its Deployment's status.availableReplicas, written through the status subresource",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					foo, ok := e.foo(t, "shop")
					require.True(t, ok)
					assert.Equal(t, int32(2), foo.Status.AvailableReplicas, "2 replicas up")
					e.patchFoo(t, "shop", `{"spec":{"replicas":5}}`)
					settle()
					foo, _ = e.foo(t, "shop")
					assert.Equal(t, int32(5), foo.Status.AvailableReplicas, "after scaling to 5")
				})
			},
		},
		{
			Name: "LeavesAForeignDeploymentAlone",
			Want: "a Deployment of that name that the Foo does not control is not adopted, scaled or changed",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				before := func(e *env) {
					_, err := e.deps.Create(context.Background(), &sc.Deployment{
						ObjectMeta: metav1.ObjectMeta{Name: "shop-web", Namespace: ns},
						Spec: sc.DeploymentSpec{Replicas: int32p(7), Selector: &metav1.LabelSelector{
							MatchLabels: map[string]string{"app": "other"}},
							Template: sc.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "other"}}}},
					}, metav1.CreateOptions{})
					require.NoError(t, err)
				}
				inBubble(t, before, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(7), replicas(d), "scaled someone else's Deployment")
					assert.Nil(t, controllerOf(d), "adopted someone else's Deployment")
				})
			},
		},
		{
			Name: "KeepsItsFinalizerUntilCleanedUp",
			Want: "a Foo carries the finalizer " + sc.FinalizerName + " from its first Reconcile on, so that its deletion waits for the controller",
			Doc:  docDeletion,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					foo, ok := e.foo(t, "shop")
					require.True(t, ok)
					assert.Contains(t, foo.Finalizers, sc.FinalizerName)
				})
			},
		},
		{
			Name: "DeletingTheFooRemovesItsDeployment",
			Want: "when a Foo is deleted, the controller deletes its Deployment, then removes the finalizer, and the Foo goes",
			Doc:  docDeletion,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					require.NoError(t, e.foos.Delete(context.Background(), "shop", metav1.DeleteOptions{}))
					settle()
					_, fooLeft := e.foo(t, "shop")
					assert.False(t, fooLeft, "the Foo is still there")
					_, depLeft := e.deployment(t, "shop-web")
					assert.False(t, depLeft, "the Deployment is still there")
				})
			},
		},
		{
			Name: "RetriesAfterAFailedWrite",
			Want: "when a write to the API server fails (a 500), Reconcile returns the error and the queue retries until the Foo is done: finalizer, Deployment, status",
			Doc:  docOutcomes,
			Test: func(t *testing.T) {
				before := func(e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					// The controller's first create, update and patch each fail.
					for _, verb := range []string{"create", "update", "patch"} {
						require.NoError(t, e.srv.FailNext(verb, 1, http.StatusInternalServerError))
					}
				}
				inBubble(t, before, func(t *testing.T, e *env) {
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(2), replicas(d))
					foo, ok := e.foo(t, "shop")
					require.True(t, ok)
					assert.Contains(t, foo.Finalizers, sc.FinalizerName)
					assert.Equal(t, int32(2), foo.Status.AvailableReplicas)
				})
			},
		},
		{
			Name: "EachFooGetsItsOwnDeployment",
			Want: "two Foos naming two Deployments each get theirs, with their own replicas; deleting one leaves the other",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				inBubble(t, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					e.createFoo(t, "blog", "blog-web", int32p(3))
					settle()
					require.NoError(t, e.foos.Delete(context.Background(), "blog", metav1.DeleteOptions{}))
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(2), replicas(d))
					_, blogLeft := e.deployment(t, "blog-web")
					assert.False(t, blogLeft)
				})
			},
		},
	}, append(practices(impl), reporting(impl)...)...)
}
