package admission

import (
	"context"
	"fmt"
	"reflect"

	"github.com/informerlab/informerlab/internal/kubejson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Validator checks objects of one kind before the API server stores a
// write: a create, an update (with the stored object to compare), a delete.
// An error refuses the write with its message (return apierrors.NewInvalid
// with field errors for the clearest answer); warnings are shown to the
// client either way. T is a pointer to the kind's Go type, such as *Foo.
//
// client-go: controller-runtime pkg/webhook/admission.Validator.
type Validator[T runtime.Object] interface {
	ValidateCreate(ctx context.Context, obj T) (warnings []string, err error)
	ValidateUpdate(ctx context.Context, oldObj, newObj T) (warnings []string, err error)
	ValidateDelete(ctx context.Context, obj T) (warnings []string, err error)
}

// ValidatingWebhook is the [Handler] of a validating webhook for
// kind gvk: it decodes the request's objects into T and asks v. A request
// for any other kind, or whose object does not decode, is refused, never
// allowed by accident. It panics if T is not a pointer to a struct: a
// wiring mistake, caught when the webhook is built.
//
// client-go: controller-runtime pkg/webhook/admission.WithValidator.
func ValidatingWebhook[T runtime.Object](gvk schema.GroupVersionKind, v Validator[T]) Handler {
	newObject[T]()
	return HandlerFunc(func(ctx context.Context, req Request) Response {
		if err := checkKind(req, gvk); err != nil {
			return Denied(err)
		}
		var warnings []string
		var err error
		switch req.Operation {
		case Create:
			var obj T
			if obj, err = decodeAdmitted[T](req.Object, "object"); err == nil {
				warnings, err = v.ValidateCreate(ctx, obj)
			}
		case Update:
			var oldObj, newObj T
			if oldObj, err = decodeAdmitted[T](req.OldObject, "oldObject"); err == nil {
				if newObj, err = decodeAdmitted[T](req.Object, "object"); err == nil {
					warnings, err = v.ValidateUpdate(ctx, oldObj, newObj)
				}
			}
		case Delete:
			var obj T
			if obj, err = decodeAdmitted[T](req.OldObject, "oldObject"); err == nil {
				warnings, err = v.ValidateDelete(ctx, obj)
			}
		default:
			return Allowed() // CONNECT: nothing to validate
		}
		if err != nil {
			return Denied(err, warnings...)
		}
		return Allowed(warnings...)
	})
}

// checkKind refuses a request for another kind than the webhook serves: a
// misconfigured webhook's rules would otherwise hand a Deployment to a Foo
// validator, which would decode it into an empty Foo and judge that.
func checkKind(req Request, gvk schema.GroupVersionKind) error {
	got := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	if got != gvk {
		return apierrors.NewBadRequest(fmt.Sprintf("webhook: this webhook admits %s, not %s: check the webhook configuration's rules", gvk, got))
	}
	return nil
}

// decodeAdmitted decodes an object of the request into a new T.
func decodeAdmitted[T runtime.Object](raw runtime.RawExtension, what string) (T, error) {
	obj := newObject[T]()
	if len(raw.Raw) == 0 {
		return obj, apierrors.NewBadRequest(fmt.Sprintf("webhook: the request has no %s", what))
	}
	if err := kubejson.Unmarshal(raw.Raw, obj); err != nil {
		return obj, apierrors.NewBadRequest(fmt.Sprintf("webhook: decoding the request's %s: %v", what, err))
	}
	return obj, nil
}

// newObject returns a new zero T, for T a pointer to a struct (*Foo).
func newObject[T runtime.Object]() T {
	var zero T
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("controller: webhook type parameter %v must be a pointer to a struct, such as *Foo", t))
	}
	return reflect.New(t.Elem()).Interface().(T)
}
