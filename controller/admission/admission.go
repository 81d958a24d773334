package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"

	"github.com/informerlab/informerlab/internal/kubejson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The admission.k8s.io/v1 wire types: what kube-apiserver POSTs to a webhook
// and what it expects back. They are declared here, field for field with the
// API, because the module depends on apimachinery alone (k8s.io/api, which
// declares them, is not one of its dependencies).

// AdmissionReviewAPIVersion and AdmissionReviewKind are the only version and
// kind of AdmissionReview served: admission.k8s.io/v1.
const (
	ReviewAPIVersion    = "admission.k8s.io/v1"
	AdmissionReviewKind = "AdmissionReview"
)

// Review is the envelope of one admission call: the API server sends
// it with Request set, the webhook answers with Response set.
//
// client-go: k8s.io/api admission/v1.AdmissionReview.
type Review struct {
	metav1.TypeMeta `json:",inline"`
	Request         *Request  `json:"request,omitempty"`
	Response        *Response `json:"response,omitempty"`
}

// Operation is what the request does to the object.
type Operation string

// The operations an admission request can carry.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Request describes the write being admitted. Object is the object
// as it would be stored (nil for a DELETE); OldObject the stored object (for
// UPDATE and DELETE).
//
// client-go: k8s.io/api admission/v1.AdmissionRequest.
type Request struct {
	UID                types.UID                    `json:"uid"`
	Kind               metav1.GroupVersionKind      `json:"kind"`
	Resource           metav1.GroupVersionResource  `json:"resource"`
	SubResource        string                       `json:"subResource,omitempty"`
	RequestKind        *metav1.GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *metav1.GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                       `json:"requestSubResource,omitempty"`
	Name               string                       `json:"name,omitempty"`
	Namespace          string                       `json:"namespace,omitempty"`
	Operation          Operation                    `json:"operation"`
	UserInfo           UserInfo                     `json:"userInfo"`
	Object             runtime.RawExtension         `json:"object,omitempty"`
	OldObject          runtime.RawExtension         `json:"oldObject,omitempty"`
	DryRun             *bool                        `json:"dryRun,omitempty"`
	Options            runtime.RawExtension         `json:"options,omitempty"`
}

// UserInfo says who sent the write.
//
// client-go: k8s.io/api authentication/v1.UserInfo.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// Response is the webhook's verdict. Allowed false refuses the
// write with Result's message; Patch (a JSON patch, PatchType "JSONPatch")
// changes the object before it is stored, from a mutating webhook only.
//
// client-go: k8s.io/api admission/v1.AdmissionResponse.
type Response struct {
	UID              types.UID         `json:"uid"`
	Allowed          bool              `json:"allowed"`
	Result           *metav1.Status    `json:"status,omitempty"`
	Patch            []byte            `json:"patch,omitempty"`
	PatchType        *string           `json:"patchType,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
}

// Allowed returns a response that admits the request, with warnings shown to
// the client (kubectl prints them).
func Allowed(warnings ...string) Response {
	return Response{Allowed: true, Warnings: warnings}
}

// Denied returns a response that refuses the request. An error that carries
// an API status (apierrors.NewInvalid, NewForbidden, ...) is answered with
// that status, so the client sees its reason and causes; any other error with
// 403 Forbidden and its message.
func Denied(err error, warnings ...string) Response {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		return Response{Allowed: false, Result: &s, Warnings: warnings}
	}
	msg := "denied"
	if err != nil {
		msg = err.Error()
	}
	return Response{Allowed: false, Warnings: warnings, Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: msg,
	}}
}

// Handler decides one admission request. It must not panic (a
// panic is recovered and refuses the request) and should answer well within
// the webhook's timeout (10 s unless its configuration says otherwise).
//
// client-go: controller-runtime pkg/webhook/admission.Handler.
type Handler interface {
	Handle(ctx context.Context, req Request) Response
}

// HandlerFunc adapts a function to an [Handler].
type HandlerFunc func(ctx context.Context, req Request) Response

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req Request) Response {
	return f(ctx, req)
}

// maxAdmissionReviewBytes caps a request body: an AdmissionReview carries
// the object and the old one, each at most etcd's 3 MiB request limit, plus
// the envelope.
const maxAdmissionReviewBytes = 7 << 20

// Webhook serves h over HTTP as an admission webhook: it reads the
// AdmissionReview, hands its request to h, and writes h's response back with
// the request's UID.
//
// Bad requests never reach h and are never allowed: a method other than
// POST is 405; a Content-Type other than application/json, a body that is
// not an admission.k8s.io/v1 AdmissionReview, one without a request or one
// over 7 MiB is 400 (413 for the size) with a message that says which. A
// panic in h is recovered and answered with a refusal.
//
// client-go: controller-runtime pkg/webhook/admission.Webhook.ServeHTTP.
func Webhook(h Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "webhook: an admission webhook is called with POST", http.StatusMethodNotAllowed)
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			http.Error(w, fmt.Sprintf("webhook: Content-Type is %q, want application/json", r.Header.Get("Content-Type")), http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdmissionReviewBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("webhook: request body over %d bytes", maxAdmissionReviewBytes), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "webhook: reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		var review Review
		if err := kubejson.Unmarshal(body, &review); err != nil {
			http.Error(w, "webhook: the body is not an AdmissionReview: "+err.Error(), http.StatusBadRequest)
			return
		}
		if review.APIVersion != ReviewAPIVersion || review.Kind != AdmissionReviewKind {
			http.Error(w, fmt.Sprintf("webhook: the body is a %q %q, want an %s %s (set admissionReviewVersions: [v1])",
				review.APIVersion, review.Kind, ReviewAPIVersion, AdmissionReviewKind), http.StatusBadRequest)
			return
		}
		if review.Request == nil {
			http.Error(w, "webhook: the AdmissionReview has no request", http.StatusBadRequest)
			return
		}

		resp := handleSafely(r.Context(), h, *review.Request, logger)
		resp.UID = review.Request.UID
		out, err := json.Marshal(Review{
			TypeMeta: metav1.TypeMeta{APIVersion: ReviewAPIVersion, Kind: AdmissionReviewKind},
			Response: &resp,
		})
		if err != nil {
			http.Error(w, "webhook: encoding the response: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// handleSafely calls h, turning a panic into a refusal.
func handleSafely(ctx context.Context, h Handler, req Request, logger *slog.Logger) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			logger.Error("webhook: handler panicked; refusing the request", "panic", p,
				"kind", req.Kind.Kind, "namespace", req.Namespace, "name", req.Name, "operation", req.Operation)
			resp = Denied(apierrors.NewInternalError(fmt.Errorf("webhook: the handler panicked: %v", p)))
		}
	}()
	return h.Handle(ctx, req)
}
