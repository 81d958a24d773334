package samplecontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// FinalizerName is the finalizer the Foo controller puts on every Foo, so
// that it can delete the Foo's Deployment before the Foo goes.
const FinalizerName = "samplecontroller.k8s.io/cleanup"

// FooReconciler makes the world match one Foo: a Deployment called
// spec.deploymentName, controlled by the Foo, running spec.replicas pods;
// and a status that says how many are available. It reads only from the
// informers' caches (listers) and writes only through the API.
//
// Each Reconcile, in order (the numbers are those in the code):
//
//  1. Step 9: get the Foo from the lister. Not found means deleted: its
//     finalizer has already run; nothing to do. If the cache is behind the
//     reconciler's own last write to the Foo, work from that write's
//     result instead (see "read your own writes" in the package doc).
//  2. Finalizer: a Foo not being deleted gets FinalizerName first, before
//     anything is created ("add before first apply"); a Foo being deleted
//     gets its Deployment deleted, then the finalizer removed, and that is
//     all ([controller.Finalizer]).
//  3. Validate the spec. Invalid: the Ready condition says why
//     (ReasonInvalidSpec), written once, and Reconcile returns a
//     [controller.TerminalError]: no retry, no hot loop. The next edit of
//     the spec brings the Foo back.
//  4. Default: spec.replicas nil means DefaultReplicas (in memory only).
//  5. Get the Deployment from its lister; create it if it is missing, with
//     a controller owner reference to the Foo — also when someone deleted
//     it: its delete event brought the Foo here.
//  6. Refuse to adopt a Deployment the Foo does not control: say so in the
//     status (ReasonResourceExists) and return an error, so the Foo is
//     retried with backoff until the obstacle is gone.
//  7. Scale the Deployment if its replicas differ, with a merge patch of
//     spec.replicas alone.
//  8. Write the status (availableReplicas, observedGeneration, Ready) through
//     the status subresource, and only if it changed.
//
// What a write never does: send a Deployment decoded into the subset type
// back to the server (that would drop every field the subset lacks). Patches
// carry only the fields they set, plus metadata.resourceVersion, which makes
// them fail with 409 Conflict if the object changed since it was read
// (controller-runtime's MergeFromWithOptimisticLock); the retry reads it
// again. The Foo status is written whole with UpdateStatus: the Foo type is
// the whole Foo.
//
// client-go: sample-controller controller.go (syncHandler), written as a
// controller-runtime Reconciler.
type FooReconciler struct {
	foos        informer.Lister[*Foo]
	deployments informer.Lister[*Deployment]
	api         API // returns typed handles
	finalizer   controller.Finalizer
	image       string
	own         *ownWrites
	obs         Observer // nil: nobody listens
}

// newFooReconciler returns a FooReconciler that reads from the two
// informers' indexers and writes through api (typed handles).
func newFooReconciler(foos, deployments indexer.Indexer, api API, image string, obs Observer) *FooReconciler {
	r := &FooReconciler{
		foos:        informer.NewLister[*Foo](foos, FoosGVR.GroupResource()),
		deployments: informer.NewLister[*Deployment](deployments, DeploymentsGVR.GroupResource()),
		api:         api,
		image:       image,
		own:         newOwnWrites(),
		obs:         obs,
	}
	r.finalizer = controller.Finalizer{Name: FinalizerName, Cleanup: r.cleanup, Update: r.updateFinalizers}
	return r
}

// Reconcile brings one Foo and its Deployment in line; see [FooReconciler].
func (r *FooReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	// 1. Step 9 (get object for key): the Request is only a key.
	cached, err := r.getFoo(req.Namespace, req.Name)
	if apierrors.IsNotFound(err) {
		r.own.forget(req.NamespacedName)
		return controller.Result{}, nil // deleted, and already cleaned up
	}
	if err != nil {
		return controller.Result{}, err
	}
	// A copy: the cache's object is shared, never modify it. If the cache
	// has not yet seen our own last write, the copy is of what it returned.
	foo := r.own.fresher(cached)

	// 2. Finalizer: added before anything is created; on deletion, cleanup.
	if deleting, err := r.finalizer.Finalize(ctx, foo); deleting || err != nil {
		return controller.Result{}, err
	}

	// 3. Validate: an invalid spec will not fix itself, so no retry.
	if errs := validateFoo(foo); len(errs) > 0 {
		invalid := errs.ToAggregate()
		cond := readyCondition(foo, false, ReasonInvalidSpec, invalid.Error())
		if err := r.updateStatus(ctx, foo, foo.Status.AvailableReplicas, cond); err != nil {
			return controller.Result{}, err
		}
		return controller.Result{}, controller.TerminalError(fmt.Errorf("samplecontroller: foo %s: invalid spec: %w", req, invalid))
	}

	// 4. Defaults.
	replicas := desiredReplicas(foo)

	// 5. The Deployment, from the cache; created if missing.
	dep, err := r.getDeployment(foo.Namespace, foo.Spec.DeploymentName)
	if apierrors.IsNotFound(err) {
		dep, err = r.createDeployment(ctx, foo, replicas)
	}
	if err != nil {
		return controller.Result{}, err
	}

	// 6. Never adopt: a Deployment this Foo does not control is someone else's.
	if !metav1.IsControlledBy(dep, foo) {
		msg := fmt.Sprintf("Deployment %q already exists and is not controlled by Foo %q", dep.Name, foo.Name)
		cond := readyCondition(foo, false, ReasonResourceExists, msg)
		if err := r.updateStatus(ctx, foo, foo.Status.AvailableReplicas, cond); err != nil {
			return controller.Result{}, err
		}
		return controller.Result{}, fmt.Errorf("samplecontroller: foo %s: %s", req, msg)
	}

	// 7. Scale.
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != replicas {
		if dep, err = r.scaleDeployment(ctx, dep, replicas); err != nil {
			return controller.Result{}, err
		}
	}

	// 8. Status, only if it changed.
	available := dep.Status.AvailableReplicas
	upToDate := dep.Status.ObservedGeneration >= dep.Generation
	msg := fmt.Sprintf("Deployment %q has %d of %d replicas available", dep.Name, available, replicas)
	cond := readyCondition(foo, false, ReasonProgressing, msg)
	if upToDate && available == replicas {
		cond = readyCondition(foo, true, ReasonAvailable, msg)
	}
	return controller.Result{}, r.updateStatus(ctx, foo, available, cond)
}

// getFoo reads a Foo from the cache (step 9).
func (r *FooReconciler) getFoo(ns, name string) (*Foo, error) {
	foo, err := r.foos.Namespace(ns).Get(name)
	r.reportGet("foos", ns, name, err)
	return foo, err
}

// getDeployment reads a Deployment from the cache (step 9).
func (r *FooReconciler) getDeployment(ns, name string) (*Deployment, error) {
	dep, err := r.deployments.Namespace(ns).Get(name)
	r.reportGet("deployments", ns, name, err)
	return dep, err
}

func (r *FooReconciler) reportGet(resource, ns, name string, err error) {
	if r.obs != nil {
		r.obs(listerGetEvent(FooControllerName, resource, ns, name, err))
	}
}

// listerGetEvent describes a lister Get for an Observer.
func listerGetEvent(ctrl, resource, ns, name string, err error) Event {
	verb := "found"
	switch {
	case apierrors.IsNotFound(err):
		verb = "not found"
	case err != nil:
		verb = "error: " + err.Error()
	}
	return Event{Step: StepListerGet, Controller: ctrl, Resource: resource, Key: ns + "/" + name, Verb: verb}
}
