package samplecontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
)

// FinalizerName is the finalizer the Foo controller puts on every Foo, so
// that it can delete the Foo's Deployment before the Foo goes.
const FinalizerName = "samplecontroller.k8s.io/cleanup"

// EventSource is the source component of the Events the Foo controller
// records, as `kubectl get events` shows it (sample-controller's
// controllerAgentName).
const EventSource = "sample-controller"

// The reasons of the Events the Foo controller records on a Foo, and the
// message of EventReasonSynced. An Event is for people (`kubectl describe
// foo`, `kubectl get events`); the Ready condition says the same for
// programs.
const (
	// EventReasonSynced (Normal): a Reconcile changed something (the
	// finalizer, the Deployment or the status) and ended in sync. A
	// Reconcile that found everything in place records nothing.
	EventReasonSynced = "Synced"
	// EventReasonErrResourceExists (Warning): the Deployment the Foo names
	// exists and is not controlled by it. Recorded on every retry; the
	// repeats raise the count of one Event.
	EventReasonErrResourceExists = "ErrResourceExists"
	// EventReasonInvalidSpec (Warning): the spec cannot be acted on; the
	// message says why.
	EventReasonInvalidSpec = "InvalidSpec"
	// EventReasonSyncFailed (Warning): a Reconcile of an existing Foo
	// failed for any other reason (a write refused, the API down); the
	// message is the error. 409 Conflicts are not recorded: the retry
	// reads the object again, and there is nothing for a person to do.
	EventReasonSyncFailed = "SyncFailed"

	// EventMessageSynced is the message of every Synced Event: the same
	// each time, so repeats count up one Event instead of adding more.
	EventMessageSynced = "Foo synced successfully"
)

// FooReconciler makes the world match one Foo: a Deployment called
// spec.deploymentName, controlled by the Foo, running spec.replicas pods;
// and a status that says how many are available. It reads only from the
// Manager's cache, through its split client (manager.Client Get, which
// returns copies and sends no request), and writes only through the API
// (the same client's Create, Patch and UpdateStatus).
//
// Each Reconcile, in order (the numbers are those in the code):
//
//  1. Step 9: get the Foo from the cache. Not found means deleted: its
//     finalizer has already run; nothing to do. If the cache is behind the
//     reconciler's own last write to the Foo, work from that write's
//     result instead (see "read your own writes" in the package doc).
//  2. Finalizer: a Foo not being deleted gets FinalizerName first, before
//     anything is created ("add before first apply"); a Foo being deleted
//     gets its Deployment deleted, then the finalizer removed, and that is
//     all ([controller.Finalizer]).
//  3. Validate the spec. Invalid: the Ready condition says why
//     (ReasonInvalidSpec), written once, a Warning Event
//     (EventReasonInvalidSpec) says it too, and Reconcile returns a
//     [controller.TerminalError]: no retry, no hot loop. The next edit of
//     the spec brings the Foo back.
//  4. Default: spec.replicas nil means DefaultReplicas (in memory only).
//  5. Get the Deployment from the cache; create it if it is missing, with
//     a controller owner reference to the Foo — also when someone deleted
//     it: its delete event brought the Foo here. Sharded, the new
//     Deployment carries BucketLabel; a create that meets AlreadyExists
//     reads the live Deployment from the API and, if the Foo controls it
//     but it lacks the label (an unsharded run made it), labels it, since
//     the replica's cache, selected by that label, would never see it.
//  6. Refuse to adopt a Deployment the Foo does not control: say so in the
//     status (ReasonResourceExists) and in a Warning Event
//     (EventReasonErrResourceExists), and return an error, so the Foo is
//     retried with backoff until the obstacle is gone.
//  7. Scale the Deployment if its replicas differ, with a merge patch of
//     spec.replicas alone.
//  8. Write the status (availableReplicas, observedGeneration, Ready) through
//     the status subresource, and only if it changed.
//
// Then, if anything was written, a Normal Event EventReasonSynced; if the
// Reconcile failed for another reason than 3 and 6, a Warning Event
// EventReasonSyncFailed with the error. Events are written by the
// Manager's event broadcaster, from its own goroutine: recording one never
// blocks a Reconcile.
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
	reader    manager.Reader  // the cache: the Manager's Client
	client    *manager.Client // writes
	api       API             // typed handles, for the one write the Client cannot express
	recorder  recorder.EventRecorder
	finalizer controller.Finalizer
	image     string
	buckets   int // > 0 when sharded: new Deployments get BucketLabel
	own       *ownWrites
	obs       Observer // nil: nobody listens
}

// newFooReconciler returns a FooReconciler that reads through reader (the
// Manager's Client, or in a test a reader over caches the test controls),
// writes through c, records Events with recorder, and deletes through api
// (typed handles).
func newFooReconciler(reader manager.Reader, c *manager.Client, api API, recorder recorder.EventRecorder, image string, obs Observer) *FooReconciler {
	r := &FooReconciler{
		reader:   reader,
		client:   c,
		api:      api,
		recorder: recorder,
		image:    image,
		own:      newOwnWrites(),
		obs:      obs,
	}
	r.finalizer = controller.Finalizer{Name: FinalizerName, Cleanup: r.cleanup, Update: r.updateFinalizers}
	return r
}

// outcome is what one sync did, for the Events Reconcile records.
type outcome struct {
	wrote  bool // at least one write succeeded
	warned bool // a Warning Event already says why it failed
}

// Reconcile brings one Foo and its Deployment in line; see [FooReconciler].
func (r *FooReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	// 1. Step 9 (get object for key): the Request is only a key.
	cached, err := r.getFoo(ctx, req.Namespace, req.Name)
	if apierrors.IsNotFound(err) {
		r.own.forget(req.NamespacedName)
		return controller.Result{}, nil // deleted, and already cleaned up
	}
	if err != nil {
		return controller.Result{}, err
	}
	// cached is the client's copy: ours to modify. If the cache has not
	// yet seen our own last write, work from what that write returned; if
	// that write deleted the Foo, there is nothing left to do.
	foo, gone := r.own.fresher(cached)
	if gone {
		return controller.Result{}, nil
	}

	done, err := r.sync(ctx, req, foo)
	switch {
	case err == nil && done.wrote:
		r.recorder.Event(foo, recorder.EventTypeNormal, EventReasonSynced, EventMessageSynced)
	case err != nil && !done.warned && !apierrors.IsConflict(err):
		r.recorder.Event(foo, recorder.EventTypeWarning, EventReasonSyncFailed, err.Error())
	}
	return controller.Result{}, err
}

// sync runs steps 2 to 8 on foo, a copy it may modify.
func (r *FooReconciler) sync(ctx context.Context, req controller.Request, foo *Foo) (outcome, error) {
	var done outcome
	// 2. Finalizer: added before anything is created; on deletion, cleanup.
	hadFinalizer := controller.ContainsFinalizer(foo, FinalizerName)
	deleting, err := r.finalizer.Finalize(ctx, foo)
	if deleting || err != nil {
		return outcome{}, err // no Synced about a Foo on its way out
	}
	done.wrote = !hadFinalizer

	// 3. Validate: an invalid spec will not fix itself, so no retry.
	if errs := validateFoo(foo); len(errs) > 0 {
		invalid := errs.ToAggregate()
		cond := readyCondition(foo, false, ReasonInvalidSpec, invalid.Error())
		if _, err := r.updateStatus(ctx, foo, foo.Status.AvailableReplicas, cond); err != nil {
			return done, err
		}
		r.recorder.Event(foo, recorder.EventTypeWarning, EventReasonInvalidSpec, invalid.Error())
		done.warned = true
		return done, controller.TerminalError(fmt.Errorf("samplecontroller: foo %s: invalid spec: %w", req, invalid))
	}

	// 4. Defaults.
	replicas := desiredReplicas(foo)

	// 5. The Deployment, from the cache; created if missing.
	dep, err := r.getDeployment(ctx, foo.Namespace, foo.Spec.DeploymentName)
	if apierrors.IsNotFound(err) {
		dep, err = r.createDeployment(ctx, foo, replicas)
		done.wrote = done.wrote || err == nil
	}
	if err != nil {
		return done, err
	}

	// 6. Never adopt: a Deployment this Foo does not control is someone else's.
	if !metav1.IsControlledBy(dep, foo) {
		msg := fmt.Sprintf("Deployment %q already exists and is not controlled by Foo %q", dep.Name, foo.Name)
		cond := readyCondition(foo, false, ReasonResourceExists, msg)
		if _, err := r.updateStatus(ctx, foo, foo.Status.AvailableReplicas, cond); err != nil {
			return done, err
		}
		r.recorder.Event(foo, recorder.EventTypeWarning, EventReasonErrResourceExists, msg)
		done.warned = true
		return done, fmt.Errorf("samplecontroller: foo %s: %s", req, msg)
	}

	// 7. Scale.
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != replicas {
		if err := r.scaleDeployment(ctx, dep, replicas); err != nil {
			return done, err
		}
		done.wrote = true
	}

	// 8. Status, only if it changed.
	available := dep.Status.AvailableReplicas
	upToDate := dep.Status.ObservedGeneration >= dep.Generation
	msg := fmt.Sprintf("Deployment %q has %d of %d replicas available", dep.Name, available, replicas)
	cond := readyCondition(foo, false, ReasonProgressing, msg)
	if upToDate && available == replicas {
		cond = readyCondition(foo, true, ReasonAvailable, msg)
	}
	wrote, err := r.updateStatus(ctx, foo, available, cond)
	done.wrote = done.wrote || wrote
	return done, err
}

// getFoo reads a copy of a Foo from the cache (step 9): no request.
func (r *FooReconciler) getFoo(ctx context.Context, ns, name string) (*Foo, error) {
	foo := &Foo{}
	err := r.reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, foo)
	r.reportGet("foos", ns, name, err)
	return foo, err
}

// getDeployment reads a copy of a Deployment from the cache (step 9): no
// request.
func (r *FooReconciler) getDeployment(ctx context.Context, ns, name string) (*Deployment, error) {
	dep := &Deployment{}
	err := r.reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, dep)
	r.reportGet("deployments", ns, name, err)
	return dep, err
}

func (r *FooReconciler) reportGet(resource, ns, name string, err error) {
	if r.obs != nil {
		r.obs(listerGetEvent(FooControllerName, resource, ns, name, err))
	}
}

// listerGetEvent describes a cache read for an Observer.
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
