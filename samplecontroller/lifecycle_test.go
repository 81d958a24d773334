package samplecontroller_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestFinalizerDeletesDeploymentBeforeFooGoes: deleting a Foo only marks it
// (deletionTimestamp), because it carries the finalizer. That update passes
// GenerationChangedPredicate (the server bumps generation on deletion), the
// Reconcile runs the finalizer's cleanup — delete the Deployment — and only
// then removes the finalizer, which lets the server delete the Foo.
// Diagram: steps 6-9 on deletion. client-go: kubebuilder "Using Finalizers"; controller.Finalizer.
func TestFinalizerDeletesDeploymentBeforeFooGoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "web", int32p(2)))
		settle()
		w.rec.reset()

		require.NoError(t, w.foos.Delete(context.Background(), "example", metav1.DeleteOptions{}))
		settle()

		_, err := w.foos.Get(context.Background(), "example", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "the Foo is gone: %v", err)
		_, err = w.deps.Get(context.Background(), "web", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "the Deployment is gone: %v", err)
		assert.Equal(t, []string{
			"[api] foo: delete deployments demo/web: cleanup by finalizer samplecontroller.k8s.io/cleanup",
			"[api] foo: patch foos demo/example: remove finalizer samplecontroller.k8s.io/cleanup",
		}, w.rec.writes(sc.FooControllerName), "the Deployment first, then the finalizer")
		assert.True(t, hasLine(w.rec.lines(nil), "[6 handler] foo: update foos demo/example"), "the deletionTimestamp update passed the predicate")
		assert.Empty(t, w.rec.writes(sc.SimulatorControllerName))
	})
}

// TestFinalizerLeavesOthersDeploymentAlone: a Foo that never got its
// Deployment (someone else's was there) is deleted: the cleanup does not
// delete what the Foo does not control.
// Diagram: step 9. client-go: metav1.IsControlledBy.
func TestFinalizerLeavesOthersDeploymentAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true}, func(w *world) {
			_, err := w.deps.Create(context.Background(), &sc.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
		})
		w.createFoo(t, newFoo("example", "web", nil))
		settle()

		require.NoError(t, w.foos.Delete(context.Background(), "example", metav1.DeleteOptions{}))
		settle()

		_, err := w.foos.Get(context.Background(), "example", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "the Foo is gone: %v", err)
		w.getDeployment(t, "web") // still there
		assert.False(t, hasLine(w.rec.writes(sc.FooControllerName), "delete deployments"))
	})
}

// TestInvalidSpecSetsReasonOnceWithoutHotLoop: a Foo whose spec cannot be
// acted on gets a Ready=False condition with reason InvalidSpec and the
// validation error, written once; Reconcile returns a TerminalError, so the
// Foo is not retried, and its status write does not wake it up
// (GenerationChangedPredicate): one Reconcile in an hour. Fixing the spec
// brings it back and it converges.
// Diagram: steps 8-9, outcome "terminal error". client-go: controller-runtime reconcile.TerminalError.
func TestInvalidSpecSetsReasonOnceWithoutHotLoop(t *testing.T) {
	for _, tc := range []struct {
		name       string
		spec       sc.FooSpec
		wantReason string
	}{
		{"no deployment name", sc.FooSpec{}, "spec.deploymentName: Required value"},
		{"bad deployment name", sc.FooSpec{DeploymentName: "Web_1"}, `spec.deploymentName: Invalid value: "Web_1"`},
		{"negative replicas", sc.FooSpec{DeploymentName: "web", Replicas: int32p(-1)}, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, sc.Options{DeploymentSimulator: true})
				foo := newFoo("example", "", nil)
				foo.Spec = tc.spec
				w.createFoo(t, foo)

				time.Sleep(time.Hour)
				synctest.Wait()

				got := w.getFoo(t, "example")
				assert.Equal(t, sc.ReasonInvalidSpec, ready(got).Reason)
				assert.Equal(t, metav1.ConditionFalse, ready(got).Status)
				assert.Contains(t, ready(got).Message, tc.wantReason)
				assert.Equal(t, 1, w.rec.reconciles(sc.FooControllerName), "one Reconcile in an hour")
				assert.Equal(t, int64(1), w.sc.FooController().Counts().TerminalErrors)
				assert.Empty(t, w.rec.all(func(e sc.Event) bool { return e.Step == sc.StepBackoff }), "no retry")
				assert.Len(t, w.rec.writes(sc.FooControllerName), 2, "the finalizer and one status write")
				assert.True(t, hasLine(w.rec.lines(nil), "[6 handler] foo: update foos demo/example, dropped by GenerationChangedPredicate"))

				got.Spec = sc.FooSpec{DeploymentName: "web", Replicas: int32p(2)}
				_, err := w.foos.Update(context.Background(), got, metav1.UpdateOptions{})
				require.NoError(t, err)
				settle()

				assert.Equal(t, sc.ReasonAvailable, ready(w.getFoo(t, "example")).Reason)
				w.checkConverged(t)
			})
		})
	}
}

// TestDefaultsReplicasWithoutWritingSpec: a Foo without spec.replicas gets
// a Deployment of DefaultReplicas; the default is applied in memory, the
// user's spec is not rewritten.
// Diagram: step 9. client-go: the CRD's default (testdata/foo-crd.yaml), which a real API server applies.
func TestDefaultsReplicasWithoutWritingSpec(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})

		created := w.createFoo(t, newFoo("example", "web", nil))
		settle()

		assert.Equal(t, sc.DefaultReplicas, *w.getDeployment(t, "web").Spec.Replicas)
		foo := w.getFoo(t, "example")
		assert.Nil(t, foo.Spec.Replicas)
		assert.Equal(t, created.Generation, foo.Generation, "spec untouched")
		w.checkConverged(t)
	})
}

// TestGenerationChangedPredicateStopsStatusUpdateHotLoop: every status write
// of the Foo controller comes back as an update event of the Foo; the
// predicate drops each (same generation), so a new Foo is reconciled a
// handful of times — for its creation and for its Deployment's events — and
// then never again, however long we wait.
// Diagram: step 6 (predicates before step 7). client-go: controller-runtime predicate.GenerationChangedPredicate.
func TestGenerationChangedPredicateStopsStatusUpdateHotLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true})
		w.createFoo(t, newFoo("example", "web", int32p(3)))
		settle()
		settled := w.rec.reconciles(sc.FooControllerName)

		time.Sleep(24 * time.Hour)
		synctest.Wait()

		dropped := w.rec.lines(func(e sc.Event) bool {
			return e.Step == sc.StepHandler && e.Controller == sc.FooControllerName && e.Resource == "foos" && e.Dropped
		})
		assert.Len(t, dropped, 3, "the finalizer patch and the two status writes came back, and were dropped")
		assert.LessOrEqual(t, settled, 4)
		assert.Equal(t, settled, w.rec.reconciles(sc.FooControllerName), "not one Reconcile more in a day")
	})
}

// TestErrorsRetryWithBackoff: the API fails the Deployment's create three times
// (500). Each failure is an error, and the Foo is retried after 5ms, 10ms,
// 20ms; the fourth try succeeds and the backoff is forgotten.
// Diagram: steps 7-8 (AddRateLimited). client-go: workqueue.ItemExponentialFailureRateLimiter.
func TestErrorsRetryWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, sc.Options{DeploymentSimulator: true}, func(w *world) {
			w.createFoo(t, newFoo("example", "web", int32p(1)))
			w.api.failNext("create", "deployments", 3) // not the Events' creates
		})

		settle()

		var delays []time.Duration
		for _, e := range w.rec.all(func(e sc.Event) bool { return e.Step == sc.StepBackoff }) {
			delays = append(delays, e.Delay)
		}
		assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, delays)
		assert.Equal(t, int64(3), w.sc.FooController().Counts().Errors)
		assert.Len(t, w.rec.lines(func(e sc.Event) bool {
			return e.Step == sc.StepAPIWrite && e.Verb == "create" && e.Err != nil
		}), 3)
		w.checkConverged(t)
	})
}

// TestDefaultRateLimiterCapsAtSixHours: the default limiter doubles a
// failing Foo's delay from 5ms and stops at 6 hours; another Foo starts at
// 5ms; Forget starts again.
// Diagram: step 7 (AddRateLimited). client-go: workqueue.DefaultControllerRateLimiter (capped at 1000s there).
func TestDefaultRateLimiterCapsAtSixHours(t *testing.T) {
	l := sc.DefaultRateLimiter()
	foo := reqFor("foo")

	var last time.Duration
	for i := 0; i < 40; i++ {
		last = l.When(foo)
	}

	assert.Equal(t, 6*time.Hour, last)
	assert.Equal(t, 5*time.Millisecond, l.When(reqFor("other")))
	l.Forget(foo)
	assert.Equal(t, 5*time.Millisecond, l.When(foo))
}

func reqFor(name string) controller.Request {
	return controller.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}
