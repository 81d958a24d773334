package controllersuite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/recorder"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// simple is the smallest Reconciler that passes the suite: what a learner
// might write for labs/7-controller, following the skeleton's contract and
// the hints, with none of the FooReconciler's stale-cache handling. Its
// switches turn one part off, for the mutants.
type simple struct {
	c      *manager.Client
	events recorder.EventRecorder

	noFinalizer bool // no finalizer: the Foo goes at once, the cleanup is left to chance
	noOwner     bool // create the Deployment without an owner reference
	noStatus    bool // never write the Foo's status
	anyOwner    bool // scale a Deployment whoever controls it
	noDefault   bool // take a nil spec.replicas as 0

	swallowErrors   bool // a failed write is dropped (Reconcile returns nil), so the queue never retries
	createEveryTime bool // create the Deployment on every Reconcile; AlreadyExists counts as done
	statusViaUpdate bool // write the status with Update, which the status subresource ignores
	nameFromFoo     bool // name the Deployment after the Foo, not spec.deploymentName
	noScale         bool // set replicas when creating the Deployment, never afterwards

	statusFromSpec       bool // the status reports spec.replicas, not the Deployment's available replicas
	statusEveryTime      bool // the status is written on every Reconcile, changed or not
	blindScale           bool // scale by updating a freshly built Deployment, with no resourceVersion
	replicasLeftToServer bool // a nil spec.replicas goes to the Deployment as nil, and is never scaled back
	goneIsError          bool // a Foo that is not found is an error
	cleanupNotFoundFails bool // cleanup returns the Delete's NotFound
	cleanupByName        bool // cleanup deletes the Deployment of that name, whoever controls it

	invalidRetried          bool // an invalid spec is returned as a plain error, so it is retried with backoff
	invalidIgnored          bool // an invalid spec is skipped: no condition, no Event, no error
	invalidCreates          bool // the Deployment is created before the spec is checked
	noObservedGeneration    bool // status.observedGeneration is never written
	observedFromDeployment  bool // status.observedGeneration is copied from the Deployment's
	statusComparesReplicas  bool // the status is written only when availableReplicas changes
	readyWhenExists         bool // Ready is True as soon as the Deployment exists
	readyFromStaleStatus    bool // Ready is True when the available count matches, whatever generation the Deployment's status is of
	conditionEveryReconcile bool // the Ready condition is rebuilt, with a new lastTransitionTime, on every Reconcile
	noEvents                bool // no Event is recorded
	warningsAsNormal        bool // the Warnings are recorded as Normal Events
	syncedEveryReconcile    bool // a Synced Event is recorded on every Reconcile that ends well, changed or not
}

func (r *simple) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	res, err := r.reconcile(ctx, req)
	if r.swallowErrors && err != nil {
		return controller.Result{}, nil
	}
	return res, err
}

func (r *simple) reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	foo := &sc.Foo{}
	if err := r.c.Get(ctx, req.NamespacedName, foo); err != nil {
		if r.goneIsError {
			return controller.Result{}, err
		}
		return controller.Result{}, manager.IgnoreNotFound(err)
	}
	changed := false
	if !r.noFinalizer {
		had := controller.ContainsFinalizer(foo, sc.FinalizerName)
		fin := controller.Finalizer{Name: sc.FinalizerName, Cleanup: r.cleanup, Update: r.c.Update}
		if deleting, err := fin.Finalize(ctx, foo); deleting || err != nil {
			return controller.Result{}, err
		}
		changed = !had
	}
	wrote, err := r.sync(ctx, foo)
	if err == nil && (changed || wrote || r.syncedEveryReconcile) {
		r.event(foo, recorder.EventTypeNormal, sc.EventReasonSynced, sc.EventMessageSynced)
	}
	return controller.Result{}, err
}

// sync makes the Deployment and the status match foo, and reports whether
// it wrote anything.
func (r *simple) sync(ctx context.Context, foo *sc.Foo) (bool, error) {
	if msg := invalid(foo); msg != "" && !r.invalidIgnored {
		if r.invalidCreates {
			if err := r.c.Create(ctx, r.deploymentFor(foo, 1)); err != nil && !apierrors.IsAlreadyExists(err) {
				return false, err
			}
		}
		wrote, err := r.writeStatus(ctx, foo, foo.Status.AvailableReplicas, 0, r.condition(false, sc.ReasonInvalidSpec, msg, foo))
		if err != nil {
			return wrote, err
		}
		r.event(foo, recorder.EventTypeWarning, sc.EventReasonInvalidSpec, msg)
		err = fmt.Errorf("foo %s: invalid spec: %s", foo.Name, msg)
		if r.invalidRetried {
			return wrote, err
		}
		return wrote, controller.TerminalError(err)
	} else if msg != "" {
		return false, nil
	}
	want := int32(1)
	if foo.Spec.Replicas != nil {
		want = *foo.Spec.Replicas
	} else if r.noDefault {
		want = 0
	}
	leftToServer := r.replicasLeftToServer && foo.Spec.Replicas == nil
	if r.createEveryTime {
		err := r.c.Create(ctx, r.deploymentFor(foo, want))
		if !apierrors.IsAlreadyExists(err) {
			return err == nil, err
		}
		return false, nil
	}
	dep := &sc.Deployment{}
	err := r.c.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: r.deploymentName(foo)}, dep)
	if apierrors.IsNotFound(err) {
		dep := r.deploymentFor(foo, want)
		if leftToServer {
			dep.Spec.Replicas = nil
		}
		err := r.c.Create(ctx, dep)
		return err == nil, err
	}
	if err != nil {
		return false, err
	}
	if !r.anyOwner && !metav1.IsControlledBy(dep, foo) {
		msg := fmt.Sprintf("Deployment %q already exists and is not controlled by Foo %q", dep.Name, foo.Name)
		wrote, err := r.writeStatus(ctx, foo, foo.Status.AvailableReplicas, 0, r.condition(false, sc.ReasonResourceExists, msg, foo))
		if err != nil {
			return wrote, err
		}
		r.event(foo, recorder.EventTypeWarning, sc.EventReasonErrResourceExists, msg)
		return wrote, errors.New(msg)
	}
	wrote := false
	if leftToServer {
		// Whatever the Deployment has, the server's default stands.
	} else if !r.noScale && r.blindScale && (dep.Spec.Replicas == nil || *dep.Spec.Replicas != want) {
		if err := r.c.Update(ctx, r.deploymentFor(foo, want)); err != nil {
			return false, err
		}
		wrote = true
	} else if !r.noScale && (dep.Spec.Replicas == nil || *dep.Spec.Replicas != want) {
		base := dep.DeepCopy()
		dep.Spec.Replicas = &want
		if err := r.c.Patch(ctx, dep, manager.MergeFrom(base)); err != nil {
			return false, err
		}
		wrote = true
	}
	available := dep.Status.AvailableReplicas
	if r.statusFromSpec {
		available = want
	}
	upToDate := dep.Status.ObservedGeneration >= dep.Generation || r.readyFromStaleStatus
	msg := fmt.Sprintf("Deployment %q has %d of %d replicas available", dep.Name, available, want)
	cond := r.condition(false, sc.ReasonProgressing, msg, foo)
	if upToDate && available == want || r.readyWhenExists {
		cond = r.condition(true, sc.ReasonAvailable, msg, foo)
	}
	statusWrote, err := r.writeStatus(ctx, foo, available, dep.Status.ObservedGeneration, cond)
	return wrote || statusWrote, err
}

// writeStatus sets foo's status, for its generation, and writes it if it
// changed. depGeneration is the Deployment's status.observedGeneration
// (0 when there is none), for a mutant.
func (r *simple) writeStatus(ctx context.Context, foo *sc.Foo, available int32, depGeneration int64, cond metav1.Condition) (bool, error) {
	if r.noStatus {
		return false, nil
	}
	var status sc.FooStatus
	foo.Status.DeepCopyInto(&status)
	status.AvailableReplicas = available
	switch {
	case r.observedFromDeployment:
		status.ObservedGeneration = depGeneration
	case !r.noObservedGeneration:
		status.ObservedGeneration = foo.Generation
	}
	if r.conditionEveryReconcile {
		cond.LastTransitionTime = metav1.Now()
		status.Conditions = []metav1.Condition{cond}
	} else {
		meta.SetStatusCondition(&status.Conditions, cond)
	}
	changed := !equality.Semantic.DeepEqual(status, foo.Status)
	if r.statusComparesReplicas {
		changed = status.AvailableReplicas != foo.Status.AvailableReplicas
	}
	if !changed && !r.statusEveryTime {
		return false, nil
	}
	foo.Status = status
	if r.statusViaUpdate {
		return true, r.c.Update(ctx, foo)
	}
	return true, r.c.UpdateStatus(ctx, foo)
}

// condition is the Ready condition for foo's generation.
func (r *simple) condition(ready bool, reason, msg string, foo *sc.Foo) metav1.Condition {
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: sc.ConditionReady, Status: status, Reason: reason, Message: msg, ObservedGeneration: foo.Generation}
}

// event records an Event on foo.
func (r *simple) event(foo *sc.Foo, eventtype, reason, msg string) {
	if r.noEvents {
		return
	}
	if r.warningsAsNormal {
		eventtype = recorder.EventTypeNormal
	}
	r.events.Event(foo, eventtype, reason, msg)
}

// invalid says what is wrong with foo's spec, or "" if nothing is: the
// rules of the Foo CRD's schema.
func invalid(foo *sc.Foo) string {
	var msgs []string
	if name := foo.Spec.DeploymentName; name == "" {
		msgs = append(msgs, "spec.deploymentName: Required value")
	} else if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		msgs = append(msgs, fmt.Sprintf("spec.deploymentName: Invalid value %q: %s", name, strings.Join(errs, ", ")))
	}
	if n := foo.Spec.Replicas; n != nil && (*n < 0 || *n > sc.MaxReplicas) {
		msgs = append(msgs, fmt.Sprintf("spec.replicas: Invalid value %d: must be from 0 to %d", *n, sc.MaxReplicas))
	}
	return strings.Join(msgs, "; ")
}

// cleanup deletes the Foo's Deployment, if it is there and the Foo's.
func (r *simple) cleanup(ctx context.Context, obj controller.Object) error {
	foo := obj.(*sc.Foo)
	if foo.Spec.DeploymentName == "" {
		return nil // an invalid spec created nothing
	}
	dep := &sc.Deployment{}
	if !r.cleanupByName {
		err := r.c.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, dep)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !metav1.IsControlledBy(dep, foo) {
			return nil
		}
	} else {
		dep.Namespace, dep.Name = foo.Namespace, foo.Spec.DeploymentName
	}
	err := r.c.Delete(ctx, dep)
	if r.cleanupNotFoundFails {
		return err
	}
	return manager.IgnoreNotFound(err)
}

func (r *simple) deploymentFor(foo *sc.Foo, replicas int32) *sc.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	d := &sc.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: r.deploymentName(foo), Namespace: foo.Namespace},
		Spec: sc.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: sc.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       sc.PodSpec{Containers: []sc.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
	if !r.noOwner {
		d.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(foo, sc.FooGVK)}
	}
	return d
}

// deploymentName is the name of foo's Deployment.
func (r *simple) deploymentName(foo *sc.Foo) string {
	if r.nameFromFoo {
		return foo.Name
	}
	return foo.Spec.DeploymentName
}
