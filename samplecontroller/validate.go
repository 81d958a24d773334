package samplecontroller

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultReplicas is the replica count of a Foo whose spec.replicas is not
// set; MaxReplicas the most a Foo may ask for. The CRD's schema states the
// same bounds (minimum 0, maximum MaxReplicas).
const (
	DefaultReplicas int32 = 1
	MaxReplicas     int32 = 100
)

// ConditionReady is the one condition a Foo's status carries, and its
// reasons.
const (
	ConditionReady = "Ready"

	// ReasonAvailable: every replica the Foo asks for is available
	// (status True).
	ReasonAvailable = "Available"
	// ReasonProgressing: the Deployment exists and is on its way
	// (status False).
	ReasonProgressing = "Progressing"
	// ReasonInvalidSpec: the spec cannot be acted on; the message says why.
	// The controller does not retry: the next edit of the spec will
	// (status False).
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonResourceExists: a Deployment of that name exists and is not
	// controlled by this Foo; the controller refuses to adopt it and
	// retries with backoff (status False).
	ReasonResourceExists = "ResourceExists"
)

// validateFoo checks what the CRD's schema checks on a real cluster, and
// what the validating webhook checks before a Foo is stored: the controller
// must not trust its input, since a cluster may have neither.
func validateFoo(foo *Foo) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	name := foo.Spec.DeploymentName
	if name == "" {
		errs = append(errs, field.Required(spec.Child("deploymentName"), "the Deployment to create"))
	} else {
		for _, msg := range validation.IsDNS1123Label(name) {
			errs = append(errs, field.Invalid(spec.Child("deploymentName"), name, msg))
		}
	}
	if r := foo.Spec.Replicas; r != nil && *r < 0 {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *r, "must be greater than or equal to 0"))
	}
	if r := foo.Spec.Replicas; r != nil && *r > MaxReplicas {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *r, fmt.Sprintf("must be less than or equal to %d", MaxReplicas)))
	}
	return errs
}

// desiredReplicas returns spec.replicas, defaulted. The default lives in
// the CRD too (a real API server writes it into the object); fakeapi has no
// defaulting, so the controller applies it in memory and never writes it
// into the user's spec.
func desiredReplicas(foo *Foo) int32 {
	if foo.Spec.Replicas == nil {
		return DefaultReplicas
	}
	return *foo.Spec.Replicas
}

// readyCondition builds the Ready condition for foo's current generation.
func readyCondition(foo *Foo, ready bool, reason, message string) metav1.Condition {
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{
		Type: ConditionReady, Status: status, Reason: reason, Message: message,
		ObservedGeneration: foo.Generation,
	}
}
