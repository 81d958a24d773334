package samplecontroller_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestCreatesDeploymentForNewFoo: a new Foo gets the finalizer first, then
// its Deployment: named by spec.deploymentName, running spec.replicas nginx
// pods, and controlled by the Foo through an owner reference with
// controller and blockOwnerDeletion set.
// Diagram: steps 6-9, then an API write. client-go: sample-controller syncHandler (newDeployment).
func TestCreatesDeploymentForNewFoo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{})
		settle()

		foo := w.createFoo(t, newFoo("example", "web", int32p(3)))
		settle()

		dep := w.getDeployment(t, "web")
		require.NotNil(t, dep.Spec.Replicas)
		assert.Equal(t, int32(3), *dep.Spec.Replicas)
		ref := metav1.GetControllerOf(dep)
		require.NotNil(t, ref, "a controller owner reference")
		assert.Equal(t, foo.UID, ref.UID)
		assert.Equal(t, "samplecontroller.k8s.io/v1alpha1", ref.APIVersion)
		assert.Equal(t, "Foo", ref.Kind)
		require.NotNil(t, ref.BlockOwnerDeletion)
		assert.True(t, *ref.BlockOwnerDeletion)
		assert.Equal(t, map[string]string{"app": "nginx", "controller": "example"}, dep.Spec.Selector.MatchLabels)
		assert.Equal(t, dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels)
		require.Len(t, dep.Spec.Template.Spec.Containers, 1)
		assert.Equal(t, sc.DefaultImage, dep.Spec.Template.Spec.Containers[0].Image)
		assert.Equal(t, []string{sc.FinalizerName}, w.getFoo(t, "example").Finalizers)
		assert.Equal(t, []string{
			"[api] foo: patch foos demo/example: add finalizer samplecontroller.k8s.io/cleanup",
			"[api] foo: create deployments demo/web: replicas 3, controlled by foo example",
			"[api] foo: update status foos demo/example: availableReplicas 0, Ready=False (Progressing)",
		}, w.rec.writes(sc.FooControllerName), "without the simulator nothing becomes available")
	})
}

// TestStatusConvergesThroughSimulator: with the DeploymentSimulator playing
// kube-controller-manager, the Deployment's status reports its replicas
// available, its update event brings the owning Foo back (through
// EnqueueRequestForOwner), and the Foo's status follows: 3 available,
// Ready=True, for the generation it observed.
// Diagram: steps 6-9 twice (Deployment event -> owner's key). client-go: controller-runtime handler.EnqueueRequestForOwner.
func TestStatusConvergesThroughSimulator(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		settle()

		w.createFoo(t, newFoo("example", "web", int32p(3)))
		settle()

		foo := w.getFoo(t, "example")
		assert.Equal(t, int32(3), foo.Status.AvailableReplicas)
		assert.Equal(t, foo.Generation, foo.Status.ObservedGeneration)
		assert.Equal(t, metav1.ConditionTrue, ready(foo).Status)
		assert.Equal(t, sc.ReasonAvailable, ready(foo).Reason)
		assert.Equal(t, `Deployment "web" has 3 of 3 replicas available`, ready(foo).Message)
		assert.Equal(t, []string{
			"[api] deployment-simulator: update status deployments demo/web: availableReplicas 0 -> 3",
		}, w.rec.writes(sc.SimulatorControllerName))
		assert.True(t, hasLine(w.rec.lines(nil), "[7 enqueue] foo: demo/example (owner of deployments demo/web)"))
		w.checkConverged(t)
	})
}

// TestDoesNothingWhenInSync: once a Foo has converged, a Reconcile of it
// (here brought by a resync, which re-delivers every cached object) reads
// both objects from the caches, finds nothing to change, and writes
// nothing: the server's resourceVersion does not move.
// Diagram: steps 8-9 (reads only). client-go: sample-controller syncHandler (no update when replicas match).
func TestDoesNothingWhenInSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true, ResyncPeriod: time.Minute})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()
		w.checkConverged(t)
		rv := w.srv.CurrentResourceVersion()
		w.rec.reset()

		time.Sleep(5 * time.Minute)
		synctest.Wait()

		assert.GreaterOrEqual(t, w.rec.reconciles(sc.FooControllerName), 4, "a resync every minute reconciles the Foo")
		assert.True(t, hasLine(w.rec.lines(nil), "[6 handler] foo: resync foos demo/example"))
		assert.True(t, hasLine(w.rec.lines(nil), "[9 lister get] foo: deployments demo/web found"))
		assert.Empty(t, w.rec.all(func(e sc.Event) bool { return e.Step == sc.StepAPIWrite }), "no API writes")
		assert.Equal(t, rv, w.srv.CurrentResourceVersion(), "nothing changed on the server")
	})
}

// TestUpdatesReplicasWhenFooSpecChanges: raising spec.replicas bumps the
// Foo's generation, so its update passes GenerationChangedPredicate; the
// Reconcile patches the Deployment's spec.replicas alone, and the status
// follows.
// Diagram: steps 6-9. client-go: sample-controller syncHandler (update when replicas differ).
func TestUpdatesReplicasWhenFooSpecChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "web", int32p(1)))
		settle()
		w.rec.reset()

		foo := w.getFoo(t, "example")
		foo.Spec.Replicas = int32p(5)
		_, err := w.foos.Update(context.Background(), foo, metav1.UpdateOptions{})
		require.NoError(t, err)
		settle()

		assert.Equal(t, int32(5), *w.getDeployment(t, "web").Spec.Replicas)
		assert.Equal(t, []string{
			"[api] foo: patch deployments demo/web: replicas 1 -> 5",
			"[api] foo: update status foos demo/example: availableReplicas 1, Ready=False (Progressing)",
			"[api] foo: update status foos demo/example: availableReplicas 5, Ready=True (Available)",
		}, w.rec.writes(sc.FooControllerName))
		w.checkConverged(t)
	})
}

// TestRevertsReplicasChangedBehindItsBack: someone scales the Deployment
// directly. Its update event reaches the owning Foo, whose Reconcile puts
// the replicas back: the Foo's spec is the truth. The patch keeps the
// field someone else added to the Deployment.
// Diagram: steps 6-9 (owned object -> owner's key). client-go: sample-controller handleObject.
func TestRevertsReplicasChangedBehindItsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorldOn(t, fakeapi.Options{}, sc.Options{DeploymentSimulator: true}) // unstructured: every field
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()

		patch := []byte(`{"spec":{"replicas":7,"minReadySeconds":30}}`)
		_, err := w.deps.Patch(context.Background(), "web", types.MergePatchType, patch, metav1.PatchOptions{})
		require.NoError(t, err)
		settle()

		assert.Equal(t, int32(2), *w.getDeployment(t, "web").Spec.Replicas)
		raw, err := w.deps.Get(context.Background(), "web", metav1.GetOptions{})
		require.NoError(t, err)
		minReady, _, _ := unstructured.NestedInt64(raw.(*unstructured.Unstructured).Object, "spec", "minReadySeconds")
		assert.Equal(t, int64(30), minReady, "a field the Deployment subset does not know survives")
		w.checkConverged(t)
	})
}
