package fakeapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateDeployment refuses an apps Deployment whose selector does not
// match its pod template's labels, as the real server's apps validation
// does (422):
//
//	spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`
//
// A Deployment with no selector, or one the selector cannot be read from,
// is left to the other checks: the rest of the real server's Deployment
// validation (a selector is required, and immutable) is not done here.
func validateDeployment(r *resource, u *unstructured.Unstructured) error {
	if r.info.GVR.Group != "apps" || r.info.Kind != "Deployment" {
		return nil
	}
	raw, ok, _ := unstructured.NestedMap(u.Object, "spec", "selector")
	if !ok || len(raw) == 0 {
		return nil
	}
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &ls); err != nil {
		return nil
	}
	if len(ls.MatchLabels)+len(ls.MatchExpressions) == 0 {
		return nil
	}
	selector, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return nil
	}
	templateLabels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
	if templateLabels == nil {
		templateLabels = map[string]string{}
	}
	if selector.Matches(labels.Set(templateLabels)) {
		return nil
	}
	return errInvalid(r, u.GetName(), field.ErrorList{field.Invalid(
		field.NewPath("spec", "template", "metadata", "labels"), templateLabels, "`selector` does not match template `labels`")})
}
