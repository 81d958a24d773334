package samplecontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/sharding"
)

// The Foo controller's writes. Each goes through write, which tells the
// Observer about it.

// write runs one API write and reports it.
func (r *FooReconciler) write(verb, resource, ns, name, detail string, do func() error) error {
	err := do()
	if r.obs != nil {
		r.obs(Event{Step: StepAPIWrite, Controller: FooControllerName, Resource: resource,
			Key: ns + "/" + name, Verb: verb, Detail: detail, Err: err})
	}
	return err
}

// updateStatus sets foo's status to available replicas and cond, for its
// current generation, and writes it through the status subresource if
// that changed anything; it reports whether it wrote. Writing an unchanged
// status would cost an API call and a watch event for every Reconcile.
func (r *FooReconciler) updateStatus(ctx context.Context, foo *Foo, available int32, cond metav1.Condition) (bool, error) {
	var status FooStatus
	foo.Status.DeepCopyInto(&status)
	status.AvailableReplicas = available
	status.ObservedGeneration = foo.Generation
	meta.SetStatusCondition(&status.Conditions, cond)
	if equality.Semantic.DeepEqual(status, foo.Status) {
		return false, nil
	}
	foo.Status = status
	detail := fmt.Sprintf("availableReplicas %d, %s=%s (%s)", available, cond.Type, cond.Status, cond.Reason)
	err := r.write("update status", "foos", foo.Namespace, foo.Name, detail, func() error {
		// The whole Foo goes, with the resourceVersion it was read at: if
		// the Foo changed since, 409 Conflict, and the retry reads it again.
		// The client fills foo with the server's answer.
		before := foo.ResourceVersion
		if err := r.client.UpdateStatus(ctx, foo); err != nil {
			return err
		}
		r.own.wrote(before, foo)
		return nil
	})
	return err == nil, err
}

// createDeployment creates foo's Deployment, controlled by foo.
func (r *FooReconciler) createDeployment(ctx context.Context, foo *Foo, replicas int32) (*Deployment, error) {
	dep := newDeployment(foo, replicas, r.image)
	if r.buckets > 0 {
		// Sharded: the child carries its owner's bucket, which its own uid
		// cannot tell.
		dep.Labels = map[string]string{BucketLabel: strconv.Itoa(sharding.BucketOf(foo.UID, r.buckets))}
	}
	detail := fmt.Sprintf("replicas %d, controlled by foo %s", replicas, foo.Name)
	err := r.write("create", "deployments", dep.Namespace, dep.Name, detail, func() error {
		// An AlreadyExists error means the cache had not seen it yet (a
		// stale read after our own create, or someone else's). The retry
		// reads a fresher cache.
		return r.client.Create(ctx, dep)
	})
	if apierrors.IsAlreadyExists(err) && r.buckets > 0 {
		// Sharded, the cache holds only Deployments labelled with a held
		// bucket: this one may never reach it.
		return r.labelExisting(ctx, foo, dep)
	}
	if err != nil {
		return nil, err
	}
	return dep, nil
}

// labelExisting handles a sharded create that met an existing Deployment.
// The replica's cache selects Deployments by BucketLabel, so one without
// the label (created before the controller ran sharded) or with another
// bucket's never reaches it, and every retry would meet AlreadyExists
// again. It reads the live Deployment from the API; if foo controls it and
// its label is not foo's bucket, it sets the label with a merge patch that
// carries the resourceVersion it read (409 Conflict if it changed since),
// after which the label selector's watch brings it into the cache. It
// returns the live Deployment either way: one foo does not control goes on
// to step 6, which reports it and never touches it.
func (r *FooReconciler) labelExisting(ctx context.Context, foo *Foo, want *Deployment) (*Deployment, error) {
	obj, err := r.api(DeploymentsGVR, want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	live, ok := obj.(*Deployment)
	if !ok {
		return nil, fmt.Errorf("samplecontroller: deployment %s/%s: got %T, want *Deployment", want.Namespace, want.Name, obj)
	}
	bucket := want.Labels[BucketLabel]
	if !metav1.IsControlledBy(live, foo) || live.Labels[BucketLabel] == bucket {
		return live, nil
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"labels": map[string]string{BucketLabel: bucket}, "resourceVersion": live.ResourceVersion},
	})
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: %w", err)
	}
	err = r.write("patch", "deployments", live.Namespace, live.Name, "label "+BucketLabel+"="+bucket, func() error {
		return r.client.Patch(ctx, live, manager.RawPatch(types.MergePatchType, patch))
	})
	if err != nil {
		return nil, err
	}
	return live, nil
}

// newDeployment returns the Deployment foo asks for: replicas pods of one
// nginx container, selected by the labels app=nginx and controller=<foo>,
// with a controller owner reference to foo.
//
// client-go: sample-controller controller.go (newDeployment).
func newDeployment(foo *Foo, replicas int32, image string) *Deployment {
	labels := func() map[string]string { return map[string]string{"app": "nginx", "controller": foo.Name} }
	return &Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: DeploymentGVK.GroupVersion().String(), Kind: DeploymentGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name:      foo.Spec.DeploymentName,
			Namespace: foo.Namespace,
			// controller: true and blockOwnerDeletion: true. The first
			// says the Foo manages it (IsControlledBy, EnqueueRequestForOwner
			// with OnlyControllerOwner); with both, the garbage collector
			// deletes it after the Foo.
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(foo, FooGVK)},
		},
		Spec: DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels()},
			Template: PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels()},
				Spec:       PodSpec{Containers: []Container{{Name: "nginx", Image: image}}},
			},
		},
	}
}

// scaleDeployment sets dep's spec.replicas with a merge patch that carries
// nothing else but the resourceVersion it was read at, and fills dep with
// the server's answer. dep must be the caller's copy.
func (r *FooReconciler) scaleDeployment(ctx context.Context, dep *Deployment, replicas int32) error {
	from := "unset"
	if dep.Spec.Replicas != nil {
		from = fmt.Sprint(*dep.Spec.Replicas)
	}
	// MergeFrom sends what differs from original: spec.replicas, and the
	// resourceVersion, blanked in original so that the patch carries it
	// (controller-runtime's MergeFromWithOptimisticLock, spelled out).
	original := dep.DeepCopy()
	original.ResourceVersion = ""
	dep.Spec.Replicas = &replicas
	return r.write("patch", "deployments", dep.Namespace, dep.Name, fmt.Sprintf("replicas %s -> %d", from, replicas), func() error {
		return r.client.Patch(ctx, dep, manager.MergeFrom(original))
	})
}

// updateFinalizers writes obj's metadata.finalizers with a merge patch,
// for the controller.Finalizer, and updates obj from the answer (its new
// resourceVersion is what the status write must carry). The patch is
// built by hand: the Finalizer has already changed obj, so there is no
// original for MergeFrom to compare with.
func (r *FooReconciler) updateFinalizers(ctx context.Context, obj controller.Object) error {
	foo, ok := obj.(*Foo)
	if !ok {
		return fmt.Errorf("samplecontroller: finalizer: got %T, want *Foo", obj)
	}
	finalizers := foo.Finalizers
	if finalizers == nil {
		finalizers = []string{} // a merge patch's null would mean "delete the key"; be explicit
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"finalizers": finalizers, "resourceVersion": foo.ResourceVersion},
	})
	if err != nil {
		return fmt.Errorf("samplecontroller: %w", err)
	}
	detail := "remove finalizer " + FinalizerName
	if controller.ContainsFinalizer(foo, FinalizerName) {
		detail = "add finalizer " + FinalizerName
	}
	return r.write("patch", "foos", foo.Namespace, foo.Name, detail, func() error {
		before := foo.ResourceVersion
		err := r.client.Patch(ctx, foo, manager.RawPatch(types.MergePatchType, patch))
		if apierrors.IsNotFound(err) && !controller.ContainsFinalizer(foo, FinalizerName) {
			return nil // removing from a Foo that is gone: done
		}
		if err != nil {
			return err
		}
		if foo.DeletionTimestamp != nil && len(foo.Finalizers) == 0 {
			// That was the last finalizer: the server deleted the Foo, and
			// answered with it at the version the patch replaced.
			r.own.deleted(types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}, before)
			return nil
		}
		r.own.wrote(before, foo)
		return nil
	})
}

// cleanup is the finalizer's cleanup: delete the Foo's Deployment, if the
// Foo controls it. The owner reference would have the garbage collector
// delete it anyway once the Foo is gone; the finalizer deletes it first,
// so that a Foo is gone only after its Deployment is, and shows where
// cleanup the garbage collector cannot do (in another system) would go.
// Deployments the Foo named under an earlier spec.deploymentName are left
// to the garbage collector.
func (r *FooReconciler) cleanup(ctx context.Context, obj controller.Object) error {
	foo, ok := obj.(*Foo)
	if !ok {
		return fmt.Errorf("samplecontroller: finalizer: got %T, want *Foo", obj)
	}
	if foo.Spec.DeploymentName == "" {
		return nil // an invalid spec created nothing
	}
	dep, err := r.getDeployment(ctx, foo.Namespace, foo.Spec.DeploymentName)
	if apierrors.IsNotFound(err) {
		return nil // already gone: cleanup is idempotent
	}
	if err != nil {
		return err
	}
	if !metav1.IsControlledBy(dep, foo) {
		return nil // someone else's: not ours to delete
	}
	uid := dep.UID
	return r.write("delete", "deployments", dep.Namespace, dep.Name, "cleanup by finalizer "+FinalizerName, func() error {
		// The UID precondition makes sure a stale cache cannot make us
		// delete a newer Deployment of the same name. The Client's Delete
		// takes no options, so this one write goes through the handle.
		err := r.api(DeploymentsGVR, dep.Namespace).Delete(ctx, dep.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &uid},
		})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}
