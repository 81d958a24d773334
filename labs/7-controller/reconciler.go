package controllerlab

import (
	"context"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/labs/grade"
)

// FooReconciler makes the world match one Foo (samplecontroller.Foo): a
// Deployment (samplecontroller.Deployment) named spec.deploymentName in the
// Foo's namespace, controlled by the Foo, running spec.replicas pods (1
// when nil: no webhook defaults it, and the Deployment must say 1, not
// leave it to the server); and the Foo's status: availableReplicas copied
// from the Deployment's status, however many of its replicas are
// available yet, observedGeneration, and one Ready condition. It tells
// the people who run it what it did and what stops it with Events on the
// Foo.
type FooReconciler struct {
	// Your fields here.
}

// NewFooReconciler returns the Reconciler. c is the Manager's split
// client: Get and List read the informers' cache (copies, no request);
// Create, Patch, Update, UpdateStatus and Delete write to the API server.
// events records Events on a Foo, as `kubectl get events` shows them: it
// never blocks, and recording the same Event again (same object, type,
// reason and message) raises the count of one Event.
func NewFooReconciler(c *manager.Client, events recorder.EventRecorder) *FooReconciler {
	panic(grade.NotImplemented("NewFooReconciler"))
}

// Reconcile is called with the namespace/name of a Foo that changed, or
// whose Deployment changed. Read the Foo (gone: nothing to do, and no
// error); keep the finalizer samplecontroller.FinalizerName on it, and
// when it is being deleted, delete its Deployment if there is one it
// controls (never another's) and let it go; create the Deployment if it is
// missing; refuse one the Foo does not control (return an error); scale
// it without overwriting what others set on it (a patch, or an update
// carrying the resourceVersion you read); write the status (UpdateStatus:
// the Foo has a status subresource) only if it changed. A Reconcile with
// nothing to change writes nothing. Return every error you meet, a failed
// write too: the queue retries the Foo only if Reconcile says it failed.
//
// Validate the spec before acting on it: fakeapi, unlike a cluster with
// the Foo's CRD, stores any Foo. A valid spec has a deploymentName that is
// a DNS-1123 label (validation.IsDNS1123Label) and replicas unset or from
// 0 to samplecontroller.MaxReplicas, the bounds of the CRD's schema. For
// an invalid spec, write no Deployment; set the Ready condition False with
// reason samplecontroller.ReasonInvalidSpec and the validation error as
// its message; record a Warning Event with reason
// samplecontroller.EventReasonInvalidSpec; and return the error wrapped in
// controller.TerminalError: it will not fix itself, so the queue does not
// retry it. The next edit of the spec is acted on.
//
// The status says which generation of the Foo it describes:
// status.observedGeneration is the metadata.generation of the Foo the
// Reconcile read. Its conditions hold one condition of type
// samplecontroller.ConditionReady, whose observedGeneration is that
// generation too, and whose reason is one of:
//
//   - ReasonAvailable (True): the Deployment's status is of its current
//     spec (status.observedGeneration at least metadata.generation) and
//     reports as many available replicas as the Foo asks for;
//   - ReasonProgressing (False): the Deployment is the Foo's, and not
//     there yet;
//   - ReasonResourceExists (False): a Deployment of that name exists and
//     the Foo does not control it;
//   - ReasonInvalidSpec (False): the spec is invalid.
//
// Its lastTransitionTime is when its status last changed (True to False
// or back); a new reason or message alone keeps it.
//
// Record Events on the Foo: a Warning with reason
// samplecontroller.EventReasonErrResourceExists each time a Reconcile
// refuses a Deployment the Foo does not control, and a Normal with reason
// samplecontroller.EventReasonSynced (message
// samplecontroller.EventMessageSynced) when a Reconcile of a Foo that is
// not being deleted changed something (the finalizer, the Deployment or
// the status) and ended without error. A Reconcile with nothing to change
// records no Event.
func (r *FooReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	panic(grade.NotImplemented("FooReconciler.Reconcile"))
}
