package fakeapi

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Patches. A patch is applied to a copy of the stored object and the result
// goes through the same path as an update (updateLocked), so a patch that
// sets metadata.resourceVersion is a precondition, a patch that changes
// nothing is a no-op, and /status patches change only status.
//
//	application/merge-patch+json            RFC 7386, below
//	application/strategic-merge-patch+json  by the Go type's merge rules (strategic_patch.go); 415 without a Go type
//	application/json-patch+json             RFC 6902, jsonpatch.go
//	application/apply-patch+yaml            415: server-side apply is not modelled

// mergePatch applies an RFC 7386 merge patch to target and returns the
// result. It modifies target's maps in place: pass a copy.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}

// patch applies a patch of type pt to the stored object (or its status).
func (s *Server) patch(r *resource, ns, name string, pt types.PatchType, data []byte, status, silent bool, fc *fieldCheck) (*unstructured.Unstructured, error) {
	if status && !r.info.HasStatus {
		return nil, errNoResource(r.gr())
	}
	if !r.info.Namespaced {
		ns = ""
	} else if ns == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s is namespaced: a namespace is required", r.info.GVR.Resource))
	}
	apply, err := patcher(r, pt, data)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, errClosed()
	}
	old, ok := r.items[r.key(ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(r.gr(), name)
	}
	result, err := apply(old.DeepCopy().Object)
	if err != nil {
		return nil, err
	}
	m, ok := result.(map[string]any)
	if !ok {
		return nil, apierrors.NewBadRequest("fakeapi: the patched document is not a JSON object")
	}
	if _, ok := m["metadata"].(map[string]any); !ok {
		return nil, apierrors.NewBadRequest("fakeapi: the patch removes or breaks metadata")
	}
	nu := &unstructured.Unstructured{Object: m}
	if err := checkTypeInfo(r, nu); err != nil {
		return nil, err
	}
	if nu.GetName() != name || nu.GetNamespace() != old.GetNamespace() {
		return nil, apierrors.NewBadRequest("fakeapi: a patch cannot change metadata.name or metadata.namespace")
	}
	// The patched object is read like a written one: a built-in kind's
	// field types (422 here, as on the real server), then unknown fields.
	if fc == nil {
		fc = &fieldCheck{}
	}
	fc.patch = true
	if err := readFields(r, nu, fc); err != nil {
		return nil, err
	}
	return s.updateLocked(r, old, nu, status, silent)
}

// patcher parses a patch for r and returns the function that applies it.
func patcher(r *resource, pt types.PatchType, data []byte) (func(doc any) (any, error), error) {
	switch pt {
	case types.MergePatchType:
		var p any
		if err := utiljson.Unmarshal(data, &p); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		if _, ok := p.(map[string]any); !ok {
			return nil, apierrors.NewBadRequest("fakeapi: a merge patch must be a JSON object")
		}
		return func(doc any) (any, error) { return mergePatch(doc, p), nil }, nil
	case types.StrategicMergePatchType:
		return strategicPatcher(r.model, r.gr().String(), data)
	case types.JSONPatchType:
		ops, err := parseJSONPatch(data)
		if err != nil {
			return nil, err
		}
		return func(doc any) (any, error) { return applyJSONPatch(doc, ops) }, nil
	}
	return nil, errUnsupportedMediaType(fmt.Sprintf("the server does not support patch type %q; use %s, %s or %s",
		pt, types.MergePatchType, types.StrategicMergePatchType, types.JSONPatchType))
}

func errPatchInvalid(msg string) error {
	return errStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "fakeapi: json patch: "+msg)
}
