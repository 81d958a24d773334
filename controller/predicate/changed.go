package predicate

import (
	"fmt"
	"maps"

	"github.com/informerlab/informerlab/controller"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// GenerationChangedPredicate passes an update only when metadata.generation
// changed, that is, when the object's spec changed. The API server bumps
// generation on spec changes only, not on status or metadata changes, so this
// is what stops a controller from waking up for its own status writes (the
// status-update hot loop). Creates, deletes and generic events pass.
//
// Caveats: objects without a generation (most built-in kinds without a spec,
// such as ConfigMaps) always have 0 and never pass an update; label and
// annotation changes do not bump generation (combine with Or and
// [LabelChangedPredicate] or [AnnotationChangedPredicate] if they matter);
// and a controller that filters its own updates must still be level-based,
// since resyncs and restarts bring every object back regardless.
//
// client-go: controller-runtime pkg/predicate.GenerationChangedPredicate.
type GenerationChangedPredicate struct{ Funcs }

// Update passes the event if both objects are present and their generations
// differ.
func (GenerationChangedPredicate) Update(e controller.UpdateEvent) bool {
	return changed(e, func(o controller.Object) int64 { return o.GetGeneration() })
}

// ResourceVersionChangedPredicate passes an update only when the
// resourceVersion changed: it drops the updates an informer synthesizes on
// resync or relist, whose old and new objects are the same version. Creates,
// deletes and generic events pass.
//
// client-go: controller-runtime pkg/predicate.ResourceVersionChangedPredicate.
type ResourceVersionChangedPredicate struct{ Funcs }

// Update passes the event if both objects are present and their
// resourceVersions differ.
func (ResourceVersionChangedPredicate) Update(e controller.UpdateEvent) bool {
	return changed(e, func(o controller.Object) string { return o.GetResourceVersion() })
}

// LabelChangedPredicate passes an update only when the labels changed.
// Creates, deletes and generic events pass.
//
// client-go: controller-runtime pkg/predicate.LabelChangedPredicate.
type LabelChangedPredicate struct{ Funcs }

// Update passes the event if both objects are present and their labels differ.
func (LabelChangedPredicate) Update(e controller.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels())
}

// AnnotationChangedPredicate passes an update only when the annotations
// changed. Creates, deletes and generic events pass.
//
// client-go: controller-runtime pkg/predicate.AnnotationChangedPredicate.
type AnnotationChangedPredicate struct{ Funcs }

// Update passes the event if both objects are present and their annotations
// differ.
func (AnnotationChangedPredicate) Update(e controller.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return !maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations())
}

// LabelSelectorPredicate returns a predicate that passes events whose object's
// labels match selector (for an update, ObjectNew's). An invalid selector is
// an error.
//
// client-go: controller-runtime pkg/predicate.LabelSelectorPredicate.
func LabelSelectorPredicate(selector metav1.LabelSelector) (controller.Predicate, error) {
	s, err := metav1.LabelSelectorAsSelector(&selector)
	if err != nil {
		return nil, fmt.Errorf("controller: invalid label selector: %w", err)
	}
	return NewPredicateFuncs(func(obj controller.Object) bool {
		return s.Matches(labels.Set(obj.GetLabels()))
	}), nil
}

// changed reports whether field differs between an update's two objects;
// an update missing either object is dropped.
func changed[V comparable](e controller.UpdateEvent, field func(controller.Object) V) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	return field(e.ObjectOld) != field(e.ObjectNew)
}
