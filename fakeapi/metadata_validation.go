package fakeapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/informerlab/informerlab/internal/kubejson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validation of metadata, the part every kind shares. The rules are
// apimachinery's, the ones kube-apiserver runs on every object, called
// directly so that the messages are the real server's to the word:
//
//	name, generateName   a DNS subdomain (a Namespace's: a DNS label)
//	namespace            a DNS label
//	labels               qualified-name keys, label values
//	annotations          qualified-name keys (any case), at most 256 KiB of keys and values in all
//	ownerReferences      apiVersion, kind, name and uid set; at most one with controller=true; no Event as owner
//	finalizers           qualified names; not both orphan and foregroundDeletion
//
// Kinds of Kubernetes' own groups (but Leases) add core validation's rule
// that a finalizer without a '/' must be one of the standard ones
// (kubernetes, orphan, foregroundDeletion). Every failure is 422 Invalid,
// with every broken rule listed.
//
// kube-apiserver runs the create rules on create and, for most kinds, on
// update; a few kinds' updates skip the finalizer names (a Lease's, a
// Deployment's). fakeapi runs the create rules on both, so an update may be
// refused there that the real server would take: a finalizer name that
// could never have been created.

// standardFinalizers are the finalizer names without a '/' that core
// validation accepts (core/v1 FinalizerKubernetes, and metav1's two).
var standardFinalizers = map[string]bool{
	"kubernetes":                     true,
	metav1.FinalizerOrphanDependents: true,
	metav1.FinalizerDeleteDependents: true,
}

// validateMeta checks u's metadata by the rules above.
func validateMeta(r *resource, u *unstructured.Unstructured) error {
	mdPath := field.NewPath("metadata")
	var om metav1.ObjectMeta
	if raw, err := json.Marshal(u.Object["metadata"]); err == nil {
		if err := kubejson.Unmarshal(raw, &om); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("fakeapi: malformed metadata: %v", err))
		}
	}
	validName := apivalidation.NameIsDNSSubdomain
	if r.info.GVR.Resource == "namespaces" && r.info.GVR.Group == "" {
		validName = apivalidation.ValidateNamespaceName
	}
	errs := apivalidation.ValidateObjectMeta(&om, r.info.Namespaced, validName, mdPath)
	if r.decodesTyped() && r.info.GVR.Group != "coordination.k8s.io" {
		for i, f := range om.Finalizers {
			if !strings.Contains(f, "/") && !standardFinalizers[f] {
				errs = append(errs, field.Invalid(mdPath.Child("finalizers").Index(i), f,
					"name is neither a standard finalizer name nor is it fully qualified"))
			}
		}
	}
	if len(errs) > 0 {
		return errInvalid(r, om.Name, errs)
	}
	return nil
}

// validateLease checks what coordination validation checks of a Lease's
// spec: a positive leaseDurationSeconds (a holder with a lease of 0 or less
// seconds would lose it before it had it) and no negative leaseTransitions.
// The field types are checked already (decodeCheck).
func validateLease(r *resource, u *unstructured.Unstructured) error {
	if r.info.GVR.Group != "coordination.k8s.io" || r.info.Kind != "Lease" {
		return nil
	}
	spec, _ := u.Object["spec"].(map[string]any)
	var errs field.ErrorList
	p := field.NewPath("spec")
	if d, ok := spec["leaseDurationSeconds"].(int64); ok && d <= 0 {
		errs = append(errs, field.Invalid(p.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if n, ok := spec["leaseTransitions"].(int64); ok && n < 0 {
		errs = append(errs, field.Invalid(p.Child("leaseTransitions"), n, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return errInvalid(r, u.GetName(), errs)
	}
	return nil
}
