package fakeapi

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Every error the server returns is an *apierrors.StatusError built here, so
// apierrors.IsNotFound and friends work in-process exactly as over HTTP.

func errNoResource(gr schema.GroupResource) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource},
	}}
}

func errConflict(r *resource, name string) error {
	return apierrors.NewConflict(r.gr(), name,
		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
}

func errTooOld(rv, oldest uint64) error {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldest))
}

// errTooLarge is the real server's answer to a resourceVersion it has not
// reached yet: 504 Timeout with a ResourceVersionTooLarge cause, retry in 1s.
func errTooLarge(rv, current uint64) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusGatewayTimeout,
		Reason:  metav1.StatusReasonTimeout,
		Message: fmt.Sprintf("Too large resource version: %d, current: %d", rv, current),
		Details: &metav1.StatusDetails{
			Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		},
	}}
}

func errInvalid(r *resource, name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(r.gvk().GroupKind(), name, errs)
}

func errInvalidOptions(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

func errClosed() error {
	return apierrors.NewServiceUnavailable("fakeapi: server is closed")
}

// errForCode builds the error a FailNext fault injects.
func errForCode(code int, msg string) error {
	switch code {
	case http.StatusTooManyRequests:
		return apierrors.NewTooManyRequests(msg, 1)
	case http.StatusInternalServerError:
		return apierrors.NewInternalError(errors.New(msg))
	case http.StatusServiceUnavailable:
		return apierrors.NewServiceUnavailable(msg)
	case http.StatusGatewayTimeout:
		return apierrors.NewTimeoutError(msg, 1)
	case http.StatusGone:
		return apierrors.NewResourceExpired(msg)
	}
	return apierrors.NewInternalError(fmt.Errorf("fakeapi: unsupported injected code %d: %s", code, msg))
}

// statusOf returns the Status of err, wrapping non-API errors as 500.
func statusOf(err error) metav1.Status {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
		return st
	}
	return apierrors.NewInternalError(err).ErrStatus
}

func errStatus(code int, reason metav1.StatusReason, msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg}}
}

func errUnsupportedMediaType(msg string) error {
	return errStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, msg)
}

// preconditionFailed is the real server's message for a failed precondition.
func preconditionFailed(field, want, have string) error {
	return errors.New("Precondition failed: " + field + " in precondition: " + want + ", " + field + " in object meta: " + have)
}
