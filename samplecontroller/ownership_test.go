package samplecontroller_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestRefusesDeploymentItDoesNotControl: a Deployment of the wanted name
// already exists, without an owner reference to the Foo. The controller
// does not adopt it: it leaves it untouched, says why in the Foo's status
// (written once), and retries with growing delays — not in a hot loop.
// Once the other Deployment is gone, the next retry creates the Foo's own.
// Diagram: step 9, then no write. client-go: sample-controller syncHandler (ErrResourceExists), metav1.IsControlledBy.
func TestRefusesDeploymentItDoesNotControl(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true}, func(w *world) {
			_, err := w.deps.Create(context.Background(), &sc.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
				Spec:       sc.DeploymentSpec{Replicas: int32p(9)},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
		})
		settle()
		theirs := w.getDeployment(t, "web")

		w.createFoo(t, newFoo("example", "web", int32p(2)))
		time.Sleep(time.Minute)
		synctest.Wait()

		foo := w.getFoo(t, "example")
		assert.Equal(t, metav1.ConditionFalse, ready(foo).Status)
		assert.Equal(t, sc.ReasonResourceExists, ready(foo).Reason)
		assert.Equal(t, `Deployment "web" already exists and is not controlled by Foo "example"`, ready(foo).Message)
		dep := w.getDeployment(t, "web")
		assert.Equal(t, theirs.ResourceVersion, dep.ResourceVersion, "their Deployment is untouched")
		assert.Empty(t, dep.OwnerReferences)
		assert.Equal(t, []string{
			"[api] foo: patch foos demo/example: add finalizer samplecontroller.k8s.io/cleanup",
			"[api] foo: update status foos demo/example: availableReplicas 0, Ready=False (ResourceExists)",
		}, w.rec.writes(sc.FooControllerName), "the status is written once")
		var delays []time.Duration
		for _, e := range w.rec.all(func(e sc.Event) bool { return e.Step == sc.StepBackoff }) {
			delays = append(delays, e.Delay)
		}
		require.GreaterOrEqual(t, len(delays), 10)
		for i := 1; i < len(delays); i++ {
			assert.Equal(t, 2*delays[i-1], delays[i], "each retry waits twice as long")
		}
		assert.Equal(t, 5*time.Millisecond, delays[0])
		assert.Less(t, len(delays), 20, "a minute of backoff from 5ms is about 14 retries, not a hot loop")

		require.NoError(t, w.deps.Delete(context.Background(), "web", metav1.DeleteOptions{}))
		time.Sleep(2 * time.Minute) // the next retry, at most one (doubled) delay away
		synctest.Wait()

		assert.True(t, metav1.IsControlledBy(w.getDeployment(t, "web"), w.getFoo(t, "example")))
		w.checkConverged(t)
	})
}

// TestRecreatesDeletedDeployment: someone deletes the Foo's Deployment. Its
// delete event maps to the owning Foo (EnqueueRequestForOwner), whose
// Reconcile finds it missing in the cache and creates it again.
// Diagram: steps 6-9 (delete of an owned object -> owner's key). client-go: sample-controller handleObject.
func TestRecreatesDeletedDeployment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()
		first := w.getDeployment(t, "web")
		w.rec.reset()

		require.NoError(t, w.deps.Delete(context.Background(), "web", metav1.DeleteOptions{}))
		settle()

		again := w.getDeployment(t, "web")
		assert.NotEqual(t, first.UID, again.UID, "a new Deployment")
		lines := w.rec.lines(nil)
		assert.True(t, hasLine(lines, "[6 handler] foo: delete deployments demo/web"))
		assert.True(t, hasLine(lines, "[7 enqueue] foo: demo/example (owner of deployments demo/web)"))
		assert.True(t, hasLine(lines, "[9 lister get] foo: deployments demo/web not found"))
		assert.True(t, hasLine(lines, "[api] foo: create deployments demo/web: replicas 2, controlled by foo example"))
		w.checkConverged(t)
	})
}

// TestRecreatesDeploymentDeletedWhileWatchWasDown: the Deployment is deleted
// without the watch seeing it, and the history is compacted, so the
// informer's re-watch gets 410 and relists. The relist finds the
// Deployment gone and delivers a delete with a DeletedFinalStateUnknown
// tombstone; the Kind source unwraps it, the owner handler still finds the
// Foo, and the Deployment comes back.
// Diagram: steps 1-9 (relist -> tombstone -> owner's key). client-go: DeltaFIFO.Replace, DeletedFinalStateUnknown.
func TestRecreatesDeploymentDeletedWhileWatchWasDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()
		first := w.getDeployment(t, "web")
		w.rec.reset()

		require.NoError(t, w.srv.SilentResource(sc.DeploymentsGVR).Namespace(ns).Delete(context.Background(), "web", metav1.DeleteOptions{}))
		w.srv.Compact()
		w.srv.CloseWatches()
		time.Sleep(time.Minute) // the reflector re-watches, gets 410 and relists, after its backoff
		synctest.Wait()

		assert.NotEqual(t, first.UID, w.getDeployment(t, "web").UID, "recreated")
		assert.True(t, hasLine(w.rec.lines(nil), "[6 handler] foo: delete (state unknown) deployments demo/web"))
		w.checkConverged(t)
	})
}
