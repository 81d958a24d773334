package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ContainsFinalizer reports whether obj carries the finalizer.
//
// client-go: controller-runtime pkg/controller/controllerutil.ContainsFinalizer.
func ContainsFinalizer(obj metav1.Object, finalizer string) bool {
	return slices.Contains(obj.GetFinalizers(), finalizer)
}

// AddFinalizer adds the finalizer to obj's metadata if it is missing, and
// reports whether it changed obj. It only edits obj: write it to the API
// server to take effect.
//
// client-go: controller-runtime pkg/controller/controllerutil.AddFinalizer.
func AddFinalizer(obj metav1.Object, finalizer string) bool {
	if ContainsFinalizer(obj, finalizer) {
		return false
	}
	obj.SetFinalizers(append(obj.GetFinalizers(), finalizer))
	return true
}

// RemoveFinalizer removes every occurrence of the finalizer from obj's
// metadata, and reports whether it changed obj. It only edits obj.
//
// client-go: controller-runtime pkg/controller/controllerutil.RemoveFinalizer.
func RemoveFinalizer(obj metav1.Object, finalizer string) bool {
	before := obj.GetFinalizers()
	after := slices.DeleteFunc(slices.Clone(before), func(f string) bool { return f == finalizer })
	if len(after) == len(before) {
		return false
	}
	obj.SetFinalizers(after)
	return true
}

// Finalizer makes a Reconciler clean up what it created outside the object
// (in another system, or objects that owner references cannot reach) before
// the API server deletes the object. Call Finalize first thing in Reconcile,
// with a copy of the object:
//
//	obj := cached.DeepCopy()                      // never the cached object
//	if deleting, err := fin.Finalize(ctx, obj); deleting || err != nil {
//		return controller.Result{}, err             // being deleted: nothing more to do
//	}
//	// ... create or update what obj asks for ...
//
// A finalizer is a name in metadata.finalizers; the API server does not
// remove an object whose finalizers are not empty, it only sets its
// deletionTimestamp. Finalize uses that:
//
//   - An object not being deleted gets the finalizer added and written
//     (Update) before Finalize returns false: so everything the Reconciler
//     creates afterwards exists only for objects that carry the finalizer
//     ("add before first apply"). An object deleted before that has nothing to
//     clean up.
//   - An object being deleted that carries the finalizer gets Cleanup; only if
//     Cleanup returns nil is the finalizer removed and written, which lets the
//     API server finish the deletion. Finalize returns true.
//   - An object being deleted without the finalizer is left alone; Finalize
//     returns true. The finalizer is never added to an object being deleted.
//
// Guarantees, and what they ask of you:
//
//   - Cleanup runs before the object disappears, for every object the
//     finalizer was written to, provided some controller keeps running.
//   - Cleanup runs at least once, and may run again: after a failed or
//     conflicting write of the finalizer's removal, or a crash between the
//     two. It must be idempotent and treat "already gone" as success.
//   - A Cleanup error leaves the finalizer in place and is returned, so the
//     Request is retried with backoff; the object stays (in deletion) until
//     Cleanup succeeds. A Cleanup that can never succeed blocks deletion
//     for ever: make it give up deliberately if that is possible.
//   - Write errors, including 409 Conflict when the object changed since it
//     was read, are returned: the retry reads the fresh object.
//   - Finalize modifies obj in place (its finalizers, and whatever Update
//     does to it): pass a copy you own, never an object from the cache.
//
// The zero Finalizer is not usable: Name, Cleanup and Update are required.
//
// client-go: none (the pattern of kubebuilder's book, "Using Finalizers";
// controller-runtime pkg/finalizer is a multi-finalizer variant).
type Finalizer struct {
	// Name is the finalizer, a qualified name such as
	// "samplecontroller.k8s.io/cleanup".
	Name string
	// Cleanup releases what the Reconciler created for obj.
	Cleanup func(ctx context.Context, obj Object) error
	// Update writes obj, with its changed finalizers, to the API server
	// (an Update of the whole object, or a patch of metadata.finalizers).
	Update func(ctx context.Context, obj Object) error
}

// Finalize adds the finalizer to an object that is not being deleted, and
// runs Cleanup then removes the finalizer for one that is. It reports
// whether the object is being deleted, in which case the Reconciler should
// do nothing more.
func (f Finalizer) Finalize(ctx context.Context, obj Object) (deleting bool, err error) {
	switch {
	case f.Name == "":
		return false, errors.New("controller: finalizer: Name is empty")
	case f.Cleanup == nil || f.Update == nil:
		return false, fmt.Errorf("controller: finalizer %s: Cleanup and Update are required", f.Name)
	case obj == nil:
		return false, fmt.Errorf("controller: finalizer %s: object is nil", f.Name)
	}

	if obj.GetDeletionTimestamp() == nil {
		if AddFinalizer(obj, f.Name) {
			if err := f.Update(ctx, obj); err != nil {
				return false, fmt.Errorf("controller: finalizer %s: adding to %s: %w", f.Name, requestFor(obj), err)
			}
		}
		return false, nil
	}

	if !ContainsFinalizer(obj, f.Name) {
		return true, nil
	}
	if err := f.Cleanup(ctx, obj); err != nil {
		return true, fmt.Errorf("controller: finalizer %s: cleanup of %s: %w", f.Name, requestFor(obj), err)
	}
	RemoveFinalizer(obj, f.Name)
	if err := f.Update(ctx, obj); err != nil {
		return true, fmt.Errorf("controller: finalizer %s: removing from %s: %w", f.Name, requestFor(obj), err)
	}
	return true, nil
}
