package controllersuite

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/labs/grade"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

const (
	docObjects = "docs/samplecontroller.md#the-objects"
	docEvents  = "docs/samplecontroller.md#events"
)

// reporting returns the behaviours that grade how the controller reports
// on a Foo, as `kubectl get foo -o yaml` and `kubectl get events` show it:
// an invalid spec is reported and left alone, not retried; the status says
// which generation it describes and whether the Foo is Ready, and since
// when; Events warn of what stops the controller and say when it changed
// something, and only then.
func reporting(impl Impl) []grade.Behaviour {
	run := func(t *testing.T, simulator bool, before func(*env), fn func(t *testing.T, e *env)) {
		t.Helper()
		grade.Bubble(t, func(t *testing.T) { fn(t, startWith(t, impl, simulator, before)) })
	}
	return []grade.Behaviour{
		{
			Name: "AnInvalidFooGetsNoDeploymentUntilFixed",
			Want: "a Foo whose spec is invalid (replicas above samplecontroller.MaxReplicas or below 0, a deploymentName that is empty or not a DNS-1123 label) gets no Deployment, Ready False with reason InvalidSpec and a Warning Event InvalidSpec; replicas at MaxReplicas are valid; once fixed, it gets its Deployment",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "over", "over-web", int32p(sc.MaxReplicas+1))
					e.createFoo(t, "under", "under-web", int32p(-1))
					e.createFoo(t, "badname", "Bad_Name", int32p(1))
					e.createFoo(t, "noname", "", int32p(1))
					e.createFoo(t, "most", "most-web", int32p(sc.MaxReplicas))
					settle()
					for _, name := range []string{"over", "under", "badname", "noname"} {
						foo := e.mustFoo(t, name)
						e.assertReady(t, foo, metav1.ConditionFalse, sc.ReasonInvalidSpec, "Foo "+name)
						assert.NotZero(t, e.eventCount(t, name, recorder.EventTypeWarning, sc.EventReasonInvalidSpec),
							"Warning Events InvalidSpec on Foo %s; its Events: %v", name, e.events(t, name))
					}
					assert.Equal(t, []string{"most-web"}, e.deploymentNames(t), "the Deployments")
					assert.Equal(t, sc.MaxReplicas, replicas(e.mustDeployment(t, "most-web")), "a Foo of MaxReplicas, the bound")

					e.patchFoo(t, "over", `{"spec":{"replicas":2}}`)
					settle()
					if d, ok := e.deployment(t, "over-web"); assert.True(t, ok, "no Deployment over-web once its Foo was fixed") {
						assert.Equal(t, int32(2), replicas(d))
					}
					e.assertReady(t, e.mustFoo(t, "over"), metav1.ConditionTrue, sc.ReasonAvailable, "Foo over, fixed")
				})
			},
		},
		{
			Name: "AFooMadeInvalidKeepsItsDeployment",
			Want: "a Foo whose spec is edited to an invalid one (replicas -1) reports it (Ready False, reason InvalidSpec, for that generation; a Warning Event InvalidSpec) and its Deployment is left as it is, not written to; the next valid edit is acted on",
			Doc:  docReconcile,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					writes, outcomes := e.log.mark()
					e.patchFoo(t, "shop", `{"spec":{"replicas":-1}}`)
					settle()
					assert.Equal(t, int32(2), replicas(e.mustDeployment(t, "shop-web")), "the Deployment's replicas after the Foo asked for -1")
					ws, _ := e.log.since(writes, outcomes)
					for _, w := range ws {
						assert.NotEqual(t, "deployments", w.resource, "a %s of Deployment %s for an invalid spec", w.verb, w.name)
					}
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionFalse, sc.ReasonInvalidSpec, "after replicas -1")
					assert.NotZero(t, e.eventCount(t, "shop", recorder.EventTypeWarning, sc.EventReasonInvalidSpec),
						"Warning Events InvalidSpec; the Foo's Events: %v", e.events(t, "shop"))

					e.patchFoo(t, "shop", `{"spec":{"replicas":3}}`)
					settle()
					assert.Equal(t, int32(3), replicas(e.mustDeployment(t, "shop-web")), "after the Foo was fixed to 3")
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionTrue, sc.ReasonAvailable, "after the fix")
				})
			},
		},
		{
			Name: "AnInvalidFooIsNotRetried",
			Want: "a Reconcile that meets an invalid spec returns a controller.TerminalError, and the Foo is left alone until it is edited: in the 10 minutes after, no Reconcile, no backoff, no Warning more",
			Doc:  docOutcome,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(-1))
					settle()
					_, os := e.log.since(0, 0)
					var last *outcome
					for i, o := range os {
						if o.key == ns+"/shop" && o.step == sc.StepReconcile {
							last = &os[i]
						}
					}
					require.NotNil(t, last, "the invalid Foo was never reconciled")
					assert.True(t, errors.Is(last.err, controller.TerminalError(nil)), "the last Reconcile of the invalid Foo: %s", describe(*last))
					warned := e.eventCount(t, "shop", recorder.EventTypeWarning, sc.EventReasonInvalidSpec)

					writes, outcomes := e.log.mark()
					time.Sleep(10 * time.Minute)
					settle()
					_, os = e.log.since(writes, outcomes)
					var after []string
					for _, o := range os {
						if o.key == ns+"/shop" {
							after = append(after, describe(o))
						}
					}
					assert.Empty(t, after, "what happened to the invalid Foo's key in the 10 minutes after")
					assert.Equal(t, warned, e.eventCount(t, "shop", recorder.EventTypeWarning, sc.EventReasonInvalidSpec),
						"the count of Warning Events InvalidSpec, 10 minutes later")
				})
			},
		},
		{
			Name: "ObservedGenerationFollowsEverySpecEdit",
			Want: "status.observedGeneration and the Ready condition's observedGeneration are the Foo's metadata.generation after every edit of its spec, also one that changes nothing on the Deployment (replicas unset, then 1), and not the Deployment's generation",
			Doc:  docObjects,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", nil)
					settle()
					e.assertObserved(t, "shop", 1, "a new Foo")
					e.patchFoo(t, "shop", `{"spec":{"replicas":1}}`)
					settle()
					e.assertObserved(t, "shop", 2, "replicas unset, then 1: the same Deployment")
					e.patchFoo(t, "shop", `{"spec":{"replicas":3}}`)
					settle()
					e.assertObserved(t, "shop", 3, "replicas 3")
					// Someone scales the Deployment; the controller scales it
					// back, and the Deployment's generation moves on twice.
					_, err := e.deps.Patch(context.Background(), "shop-web", types.MergePatchType,
						[]byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{})
					require.NoError(t, err)
					settle()
					assert.Equal(t, int32(3), replicas(e.mustDeployment(t, "shop-web")))
					e.assertObserved(t, "shop", 3, "after the Deployment was scaled behind the Foo's back")
				})
			},
		},
		{
			Name: "ReadyOnlyWhenEveryReplicaIsAvailable",
			Want: "Ready is True (reason Available) only while the Deployment's status is of its current spec and reports every replica the Foo asks for available; False (reason Progressing) with none, 1 of 3, 2 of 3, and after a scale to 2 until the Deployment's status catches up",
			Doc:  docObjects,
			Test: func(t *testing.T) {
				run(t, false, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(3))
					settle()
					e.mustDeployment(t, "shop-web")
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionFalse, sc.ReasonProgressing, "no replica available yet")
					steps := []struct {
						available int32
						status    metav1.ConditionStatus
						reason    string
						when      string
					}{
						{1, metav1.ConditionFalse, sc.ReasonProgressing, "1 of 3 replicas available"},
						{3, metav1.ConditionTrue, sc.ReasonAvailable, "3 of 3 replicas available"},
						{2, metav1.ConditionFalse, sc.ReasonProgressing, "2 of 3 replicas available again"},
					}
					for _, s := range steps {
						e.setAvailable(t, "shop-web", s.available)
						settle()
						e.assertReady(t, e.mustFoo(t, "shop"), s.status, s.reason, s.when)
					}
					// 2 available, and the Foo now asks for 2: but the
					// Deployment's status is of its spec of 3 replicas.
					e.patchFoo(t, "shop", `{"spec":{"replicas":2}}`)
					settle()
					d := e.mustDeployment(t, "shop-web")
					require.Equal(t, int32(2), replicas(d))
					require.Less(t, d.Status.ObservedGeneration, d.Generation)
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionFalse, sc.ReasonProgressing,
						"scaled to 2, 2 available, the Deployment's status of its previous generation")
					e.setAvailable(t, "shop-web", 2)
					settle()
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionTrue, sc.ReasonAvailable, "the Deployment's status caught up: 2 of 2")
				})
			},
		},
		{
			Name: "ReadyKeepsItsTransitionTimeUntilItFlips",
			Want: "the Foo has one Ready condition; its lastTransitionTime moves only when its status flips (False to True), not when its message changes (0, then 1 of 3 available) nor on a Reconcile with nothing to change",
			Doc:  docObjects,
			Test: func(t *testing.T) {
				run(t, false, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(3))
					settle()
					first := e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionFalse, sc.ReasonProgressing, "no replica available yet")
					e.setAvailable(t, "shop-web", 1)
					settle()
					foo := e.mustFoo(t, "shop")
					require.Equal(t, int32(1), foo.Status.AvailableReplicas)
					c := e.assertReady(t, foo, metav1.ConditionFalse, sc.ReasonProgressing, "1 of 3 available")
					if first != nil && c != nil {
						assert.Equal(t, first.LastTransitionTime.UTC(), c.LastTransitionTime.UTC(), "lastTransitionTime: False, and still False")
					}
					e.setAvailable(t, "shop-web", 3)
					settle()
					ready := e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionTrue, sc.ReasonAvailable, "3 of 3 available")
					if first != nil && ready != nil {
						assert.True(t, ready.LastTransitionTime.After(first.LastTransitionTime.Time),
							"lastTransitionTime %s when it became True, since False at %s", ready.LastTransitionTime.UTC(), first.LastTransitionTime.UTC())
					}
					for _, v := range []string{"1", "2"} {
						e.annotateDeployment(t, "shop-web", "touched", v)
						settle()
					}
					c = e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionTrue, sc.ReasonAvailable, "after Reconciles with nothing to change")
					if ready != nil && c != nil {
						assert.Equal(t, ready.LastTransitionTime.UTC(), c.LastTransitionTime.UTC(), "lastTransitionTime after Reconciles with nothing to change")
					}
				})
			},
		},
		{
			Name: "WarnsOfAForeignDeployment",
			Want: "a Foo whose Deployment name is taken by one it does not control shows Ready False, reason ResourceExists, and a Warning Event ErrResourceExists; once that Deployment is gone, the Foo gets its own, Ready True and a Normal Event Synced",
			Doc:  docEvents,
			Test: func(t *testing.T) {
				run(t, true, createForeign, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionFalse, sc.ReasonResourceExists, "while the Deployment is someone else's")
					assert.NotZero(t, e.eventCount(t, "shop", recorder.EventTypeWarning, sc.EventReasonErrResourceExists),
						"Warning Events ErrResourceExists; the Foo's Events: %v", e.events(t, "shop"))

					require.NoError(t, e.deps.Delete(context.Background(), "shop-web", metav1.DeleteOptions{}))
					time.Sleep(time.Minute) // the Foo's retries back off
					settle()
					d := e.mustDeployment(t, "shop-web")
					assert.True(t, metav1.IsControlledBy(d, e.mustFoo(t, "shop")), "the new Deployment is the Foo's")
					e.assertReady(t, e.mustFoo(t, "shop"), metav1.ConditionTrue, sc.ReasonAvailable, "once the other Deployment was gone")
					assert.NotZero(t, e.eventCount(t, "shop", recorder.EventTypeNormal, sc.EventReasonSynced),
						"Normal Events Synced; the Foo's Events: %v", e.events(t, "shop"))
				})
			},
		},
		{
			Name: "SyncedOnlyWhenSomethingChanged",
			Want: "a Reconcile that changed something records a Normal Event Synced on the Foo (a new Foo, a scale); Reconciles with nothing to change record no Event at all",
			Doc:  docEvents,
			Test: func(t *testing.T) {
				run(t, true, nil, func(t *testing.T, e *env) {
					e.createFoo(t, "shop", "shop-web", int32p(2))
					settle()
					synced := e.eventCount(t, "shop", recorder.EventTypeNormal, sc.EventReasonSynced)
					require.NotZero(t, synced, "Normal Events Synced for a new Foo; its Events: %v", e.events(t, "shop"))
					all := e.eventCount(t, "shop", "", "")
					writes, outcomes := e.log.mark()
					for _, v := range []string{"1", "2", "3"} {
						e.annotateDeployment(t, "shop-web", "touched", v)
						settle()
					}
					_, os := e.log.since(writes, outcomes)
					require.NotZero(t, reconcilesOf(os, ns+"/shop"), "the Deployment's changes reached the Foo's controller")
					assert.Equal(t, all, e.eventCount(t, "shop", "", ""), "the count of the Foo's Events after %d Reconciles with nothing to change; its Events: %v",
						reconcilesOf(os, ns+"/shop"), e.events(t, "shop"))

					e.patchFoo(t, "shop", `{"spec":{"replicas":4}}`)
					settle()
					assert.Greater(t, e.eventCount(t, "shop", recorder.EventTypeNormal, sc.EventReasonSynced), synced,
						"the count of Normal Events Synced after a scale")
				})
			},
		},
	}
}

// kubeEvent is what a behaviour checks of a v1 Event, as `kubectl get
// events` shows it.
type kubeEvent struct {
	Type, Reason, Message string
	Count                 int64
}

func (k kubeEvent) String() string {
	return fmt.Sprintf("%s %s ×%d %q", k.Type, k.Reason, k.Count, k.Message)
}

// eventsGVR is the core v1 events resource, which fakeapi serves built in.
var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// events returns the Events about Foo name, read back from the server.
func (e *env) events(t *testing.T, name string) []kubeEvent {
	t.Helper()
	list, err := e.srv.Resource(eventsGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	var out []kubeEvent
	for _, item := range items {
		u, ok := item.(*unstructured.Unstructured)
		require.True(t, ok, "got %T", item)
		str := func(fields ...string) string { s, _, _ := unstructured.NestedString(u.Object, fields...); return s }
		if str("involvedObject", "kind") != "Foo" || str("involvedObject", "name") != name {
			continue
		}
		count, _, _ := unstructured.NestedInt64(u.Object, "count")
		out = append(out, kubeEvent{Type: str("type"), Reason: str("reason"), Message: str("message"), Count: count})
	}
	return out
}

// eventCount sums the counts of the Events about Foo name of that type
// and reason ("" for any).
func (e *env) eventCount(t *testing.T, name, eventtype, reason string) int64 {
	t.Helper()
	var n int64
	for _, ev := range e.events(t, name) {
		if (eventtype == "" || ev.Type == eventtype) && (reason == "" || ev.Reason == reason) {
			n += max(ev.Count, 1)
		}
	}
	return n
}

// deploymentNames returns the names of the namespace's Deployments.
func (e *env) deploymentNames(t *testing.T) []string {
	t.Helper()
	list, err := e.deps.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	var names []string
	for _, item := range items {
		m, err := meta.Accessor(item)
		require.NoError(t, err)
		names = append(names, m.GetName())
	}
	return names
}

// assertReady checks that foo has one Ready condition, of that status and
// reason, for foo's generation, as its status.observedGeneration is, and
// returns it (nil if there is none).
func (e *env) assertReady(t *testing.T, foo *sc.Foo, status metav1.ConditionStatus, reason, when string) *metav1.Condition {
	t.Helper()
	var ready []metav1.Condition
	for _, c := range foo.Status.Conditions {
		if c.Type == sc.ConditionReady {
			ready = append(ready, c)
		}
	}
	if !assert.Len(t, ready, 1, "%s: the Foo's Ready conditions (status.conditions %v)", when, foo.Status.Conditions) {
		return nil
	}
	c := ready[0]
	assert.Equal(t, status, c.Status, "%s: Ready's status (message %q)", when, c.Message)
	assert.Equal(t, reason, c.Reason, "%s: Ready's reason (message %q)", when, c.Message)
	assert.Equal(t, foo.Generation, c.ObservedGeneration, "%s: Ready's observedGeneration, the Foo being at generation %d", when, foo.Generation)
	assert.Equal(t, foo.Generation, foo.Status.ObservedGeneration, "%s: status.observedGeneration, the Foo being at generation %d", when, foo.Generation)
	return &c
}

// assertObserved checks that Foo name is at generation and that its
// status and its Ready condition say they describe it.
func (e *env) assertObserved(t *testing.T, name string, generation int64, when string) {
	t.Helper()
	foo := e.mustFoo(t, name)
	require.Equal(t, generation, foo.Generation, "%s: the Foo's metadata.generation", when)
	assert.Equal(t, generation, foo.Status.ObservedGeneration, "%s: status.observedGeneration", when)
	if c := meta.FindStatusCondition(foo.Status.Conditions, sc.ConditionReady); assert.NotNil(t, c, "%s: no Ready condition", when) {
		assert.Equal(t, generation, c.ObservedGeneration, "%s: the Ready condition's observedGeneration", when)
	}
}
