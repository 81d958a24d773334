package controllersuite

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/labs/grade"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

const (
	docStatus  = "docs/samplecontroller.md#one-foo-step-by-step"
	docWrites  = "docs/controller.md#the-split-client"
	docOutcome = "docs/controller.md#the-outcome-table"
)

// practices returns the behaviours that grade the practices lab 7 teaches,
// beyond what the objects left on the server show: where the status comes
// from, how many writes a Reconcile sends and of what kind, who defaults a
// missing field, and what a deletion may touch and how it ends.
func practices(impl Impl) []grade.Behaviour {
	run := func(t *testing.T, simulator bool, before func(*env), fn func(t *testing.T, e *env)) {
		t.Helper()
		grade.Bubble(t, func(t *testing.T) { fn(t, startWith(t, impl, simulator, before)) })
	}
	return []grade.Behaviour{
		{
			Name: "StatusComesFromTheDeployment",
			Want: "status.availableReplicas is read from the Deployment's status as it becomes available, later and partly: 0 while none is, 1 of 3, then 3 (never copied from spec)",
			Doc:  docStatus,
			Test: func(t *testing.T) {
				run(t, false, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(3))
					settle()
					e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(0), e.mustFoo(t, "shop").Status.AvailableReplicas, "no replica of the Deployment is available yet")
					e.setAvailable(t, "shop-web", 1)
					settle()
					assert.Equal(t, int32(1), e.mustFoo(t, "shop").Status.AvailableReplicas, "1 of 3 replicas available")
					e.setAvailable(t, "shop-web", 3)
					settle()
					assert.Equal(t, int32(3), e.mustFoo(t, "shop").Status.AvailableReplicas, "3 of 3 replicas available")
				})
			},
		},
		{
			Name: "WritesNothingWhenNothingChanged",
			Want: "a Reconcile of a Foo whose Deployment and status already match writes nothing: the status only when it changes, the Deployment only when it differs",
			Doc:  docWrites,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					writes, outcomes := e.log.mark()
					// Someone else's changes to the Deployment bring the Foo
					// back to the controller, with nothing for it to do.
					for _, v := range []string{"1", "2", "3"} {
						e.annotateDeployment(t, "shop-web", "touched", v)
						settle()
					}
					ws, os := e.log.since(writes, outcomes)
					require.NotZero(t, reconcilesOf(os, ns+"/shop"), "the Deployment's changes reached the Foo's controller")
					assert.Empty(t, ws, "what %d Reconciles of a Foo already in order wrote", reconcilesOf(os, ns+"/shop"))
				})
			},
		},
		{
			Name: "ScalesWithoutOverwritingOthers",
			Want: "the Deployment is scaled with a patch, or an update carrying the resourceVersion that was read, never a blind overwrite: what others set on it (an annotation) survives",
			Doc:  docWrites,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					e.annotateDeployment(t, "shop-web", "team", "web")
					settle()
					writes, outcomes := e.log.mark()
					e.patchFoo(t, "shop", `{"spec":{"replicas":4}}`)
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.Equal(t, int32(4), replicas(d))
					assert.Equal(t, "web", d.Annotations["team"], "an annotation someone else set on the Deployment, after the scale")
					ws, _ := e.log.since(writes, outcomes)
					for _, w := range ws {
						if w.resource == "deployments" && w.verb == "update" {
							assert.NotEmpty(t, w.resourceVersion, "an update of Deployment %s without a resourceVersion: it overwrites whatever changed since", w.name)
						}
					}
				})
			},
		},
		{
			Name: "DefaultsMissingReplicasItself",
			Want: "with no webhook to default it, a Foo without spec.replicas is defaulted by the controller: its Deployment gets spec.replicas 1, set, not left for the server, also when replicas are removed from a Foo",
			Doc:  docStatus,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", nil)
					settle()
					d := e.mustDeployment(t, "shop-web")
					if assert.NotNil(t, d.Spec.Replicas, "spec.replicas left unset (no server default runs here)") {
						assert.Equal(t, int32(1), *d.Spec.Replicas)
					}
					e.patchFoo(t, "shop", `{"spec":{"replicas":4}}`)
					settle()
					assert.Equal(t, int32(4), replicas(e.mustDeployment(t, "shop-web")))
					e.patchFoo(t, "shop", `{"spec":{"replicas":null}}`)
					settle()
					d = e.mustDeployment(t, "shop-web")
					if assert.NotNil(t, d.Spec.Replicas, "spec.replicas after the Foo's were removed") {
						assert.Equal(t, int32(1), *d.Spec.Replicas, "spec.replicas after the Foo's were removed")
					}
					assert.Equal(t, int32(1), e.mustFoo(t, "shop").Status.AvailableReplicas)
				})
			},
		},
		{
			Name: "AGoneFooIsNotAnError",
			Want: "a Reconcile of a Foo that is gone returns no error and no requeue: it is not retried, with backoff, forever",
			Doc:  docOutcome,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					require.NoError(t, e.foos.Delete(context.Background(), "shop", metav1.DeleteOptions{}))
					settle()
					_, fooLeft := e.foo(t, "shop")
					require.False(t, fooLeft, "the Foo is still there")
					writes, outcomes := e.log.mark()
					time.Sleep(10 * time.Minute)
					settle()
					_, os := e.log.since(writes, outcomes)
					var after []string
					for _, o := range os {
						if o.key == ns+"/shop" {
							after = append(after, describe(o))
						}
					}
					assert.Empty(t, after, "what happened to the gone Foo's key in the 10 minutes after it went")
				})
			},
		},
		{
			Name: "DeletingAFooWhoseDeploymentIsGone",
			Want: "a Foo whose Deployment is already gone (deleted behind the cache's back) is deleted all the same: cleanup takes NotFound as done, and the finalizer comes off",
			Doc:  docDeletion,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(1))
					settle()
					silent := e.srv.SilentResource(sc.DeploymentsGVR).Namespace(ns)
					require.NoError(t, silent.Delete(context.Background(), "shop-web", metav1.DeleteOptions{}))
					require.NoError(t, e.foos.Delete(context.Background(), "shop", metav1.DeleteOptions{}))
					settle()
					_, fooLeft := e.foo(t, "shop")
					assert.False(t, fooLeft, "the Foo is still there: its cleanup did not finish")
				})
			},
		},
		{
			Name: "DeletingAFooLeavesAForeignDeployment",
			Want: "deleting a Foo cleans up only what it controls: a Deployment of the name it names, that it does not control, is left as it is, and the Foo goes",
			Doc:  docDeletion,
			Test: func(t *testing.T) {
				run(t, true, createForeign, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					require.NoError(t, e.foos.Delete(context.Background(), "shop", metav1.DeleteOptions{}))
					settle()
					d, ok := e.deployment(t, "shop-web")
					if assert.True(t, ok, "the Foo's cleanup deleted a Deployment it does not control") {
						assert.Equal(t, int32(7), replicas(d))
					}
					_, fooLeft := e.foo(t, "shop")
					assert.False(t, fooLeft, "the Foo is still there: its cleanup did not finish")
				})
			},
		},
	}
}

// createForeign creates Deployment shop-web, of 7 replicas, controlled by
// nobody.
func createForeign(e *env) {
	_, err := e.deps.Create(context.Background(), &sc.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-web", Namespace: ns},
		Spec: sc.DeploymentSpec{Replicas: int32p(7), Selector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"app": "other"}},
			Template: sc.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "other"}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		panic("controllersuite: creating the foreign Deployment: " + err.Error())
	}
}

// mustFoo returns Foo name, failing the behaviour if it does not exist.
func (e *env) mustFoo(t *testing.T, name string) *sc.Foo {
	t.Helper()
	foo, ok := e.foo(t, name)
	require.True(t, ok, "no Foo %s", name)
	return foo
}

// setAvailable plays the Deployment controller: n of Deployment name's
// replicas are available.
func (e *env) setAvailable(t *testing.T, name string, n int32) {
	t.Helper()
	d := e.mustDeployment(t, name)
	d.Status = sc.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas(d), UpdatedReplicas: replicas(d),
		ReadyReplicas: n, AvailableReplicas: n}
	_, err := e.deps.UpdateStatus(context.Background(), d, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// annotateDeployment sets an annotation on Deployment name, as someone
// other than the controller.
func (e *env) annotateDeployment(t *testing.T, name, key, value string) {
	t.Helper()
	_, err := e.deps.Patch(context.Background(), name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+key+`":"`+value+`"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
}

// reconcilesOf counts the Reconciles of key among os.
func reconcilesOf(os []outcome, key string) int {
	n := 0
	for _, o := range os {
		if o.step == sc.StepReconcile && o.key == key {
			n++
		}
	}
	return n
}

// describe says what an outcome was, in a few words.
func describe(o outcome) string {
	switch {
	case o.step == sc.StepBackoff:
		return "backoff"
	case o.err != nil:
		return "Reconcile returned error: " + o.err.Error()
	case o.res:
		return "Reconcile asked for a requeue"
	}
	return "Reconcile returned nothing"
}
