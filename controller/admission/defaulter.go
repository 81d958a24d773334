package admission

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Defaulter fills in what the user left out of an object of one kind,
// before the API server validates and stores it. It changes obj in place;
// an error refuses the write. T is a pointer to the kind's Go type.
//
// client-go: controller-runtime pkg/webhook/admission.Defaulter.
type Defaulter[T runtime.Object] interface {
	Default(ctx context.Context, obj T) error
}

// DefaultingWebhook is the [Handler] of a mutating webhook for kind
// gvk: it decodes a create's or an update's object into T, calls d, and
// answers with a JSON patch from the object as sent to the object as
// defaulted. The patch holds only what Default changed: the difference is
// taken between the object decoded and encoded again before Default and
// after it, so that fields the Go type does not know, or encodes in another
// form, are left as the client sent them. Deletes and connects are allowed
// untouched. It panics if T is not a pointer to a struct.
//
// client-go: controller-runtime pkg/webhook/admission.WithDefaulter.
func DefaultingWebhook[T runtime.Object](gvk schema.GroupVersionKind, d Defaulter[T]) Handler {
	newObject[T]()
	return HandlerFunc(func(ctx context.Context, req Request) Response {
		if err := checkKind(req, gvk); err != nil {
			return Denied(err)
		}
		if req.Operation != Create && req.Operation != Update {
			return Allowed()
		}
		obj, err := decodeAdmitted[T](req.Object, "object")
		if err != nil {
			return Denied(err)
		}
		before, err := json.Marshal(obj)
		if err != nil {
			return Denied(apierrors.NewInternalError(fmt.Errorf("webhook: encoding the object: %w", err)))
		}
		if err := d.Default(ctx, obj); err != nil {
			return Denied(err)
		}
		after, err := json.Marshal(obj)
		if err != nil {
			return Denied(apierrors.NewInternalError(fmt.Errorf("webhook: encoding the defaulted object: %w", err)))
		}
		patch, err := jsonPatchFor(req.Object.Raw, before, after)
		if err != nil {
			return Denied(apierrors.NewInternalError(fmt.Errorf("webhook: computing the patch: %w", err)))
		}
		resp := Allowed()
		if len(patch) > 0 {
			resp.Patch = patch
			patchType := "JSONPatch"
			resp.PatchType = &patchType
		}
		return resp
	})
}
