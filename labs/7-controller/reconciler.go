package controllerlab

import (
	"context"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/labs/grade"
)

// FooReconciler makes the world match one Foo (samplecontroller.Foo): a
// Deployment (samplecontroller.Deployment) named spec.deploymentName in the
// Foo's namespace, controlled by the Foo, running spec.replicas pods (1
// when nil: no webhook defaults it, and the Deployment must say 1, not
// leave it to the server); and the Foo's status.availableReplicas copied
// from the Deployment's status, however many of its replicas are
// available yet.
type FooReconciler struct {
	// Your fields here.
}

// NewFooReconciler returns the Reconciler. c is the Manager's split
// client: Get and List read the informers' cache (copies, no request);
// Create, Patch, Update, UpdateStatus and Delete write to the API server.
func NewFooReconciler(c *manager.Client) *FooReconciler {
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
func (r *FooReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	panic(grade.NotImplemented("FooReconciler.Reconcile"))
}
