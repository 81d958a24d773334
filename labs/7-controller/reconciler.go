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
// when nil); and the Foo's status.availableReplicas copied from the
// Deployment's status.
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
// whose Deployment changed. Read the Foo (gone: nothing to do); keep the
// finalizer samplecontroller.FinalizerName on it, and when it is being
// deleted, delete its Deployment and let it go; create the Deployment if
// it is missing; refuse one the Foo does not control (return an error);
// scale it; write the status (UpdateStatus: the Foo has a status
// subresource) if it changed. Return every error you meet, a failed write
// too: the queue retries the Foo only if Reconcile says it failed.
func (r *FooReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	panic(grade.NotImplemented("FooReconciler.Reconcile"))
}
