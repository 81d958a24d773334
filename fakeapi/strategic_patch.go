package fakeapi

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Strategic merge patch (application/strategic-merge-patch+json), the patch
// kubectl apply, label and annotate send for the kinds kubectl knows. It is
// a merge patch with rules from the Go type: a list field tagged
// patchStrategy:"merge" is merged element by element (by its patchMergeKey,
// or as a set for a list of strings) instead of replaced, and directives
// ($patch, $retainKeys, $setElementOrder/..., $deleteFromPrimitiveList/...)
// say what to delete, keep or reorder. apimachinery's strategicpatch package
// does the work from the resource's Go type: fakeapi's model of a built-in
// kind, or ResourceInfo.Object.
//
// A resource without a Go type has no rules to follow: like a real server
// for a custom resource, fakeapi refuses the patch (415) and names the
// patch types it accepts, rather than applying it as a merge patch and
// quietly replacing lists the sender meant to merge.

// strategicPatcher parses a strategic merge patch for a resource whose
// objects have Go type model (nil: none).
func strategicPatcher(model reflect.Type, resource string, data []byte) (func(doc any) (any, error), error) {
	if model == nil {
		return nil, errUnsupportedMediaType(fmt.Sprintf(
			"strategic merge patch is not supported for %s: it has no Go type to take merge rules from; use application/merge-patch+json or application/json-patch+json",
			resource))
	}
	var p any
	if err := utiljson.Unmarshal(data, &p); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, apierrors.NewBadRequest("fakeapi: a strategic merge patch must be a JSON object")
	}
	return func(doc any) (any, error) {
		original, err := utiljson.Marshal(doc)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: encode stored object: %w", err))
		}
		patched, err := strategicpatch.StrategicMergePatch(original, data, reflect.New(model).Interface())
		if err != nil {
			return nil, strategicPatchError(err)
		}
		var out any
		if err := utiljson.Unmarshal(patched, &out); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("fakeapi: decode patched object: %w", err))
		}
		return out, nil
	}, nil
}

// strategicPatchError maps a failure to the status a real server answers:
// a malformed patch is 400, a patch that does not fit the type is 422.
func strategicPatchError(err error) error {
	for _, bad := range []error{mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList,
		mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList,
		mergepatch.ErrUnsupportedStrategicMergePatchFormat} {
		if errors.Is(err, bad) {
			return apierrors.NewBadRequest("fakeapi: strategic merge patch: " + err.Error())
		}
	}
	return errStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		"fakeapi: the strategic merge patch does not fit the object: "+err.Error())
}
