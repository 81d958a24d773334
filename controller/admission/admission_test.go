package admission_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/informerlab/informerlab/controller/admission"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/fakeapi"
)

// Gadget is a typed object for the webhook tests.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec `json:"spec"`
}

type GadgetSpec struct {
	Size  *int32   `json:"size,omitempty"`
	Color string   `json:"color,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

func (w *Gadget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

var (
	gadgetGVK = schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "Gadget"}
	gadgetGVR = schema.GroupVersionResource{Group: "example.org", Version: "v1", Resource: "gadgets"}
)

// review builds the body the API server POSTs: an admission.k8s.io/v1
// AdmissionReview of a write to a Gadget.
func review(op admission.Operation, object, oldObject string) string {
	req := admission.Request{
		UID:       "uid-1",
		Kind:      metav1.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "Gadget"},
		Resource:  metav1.GroupVersionResource{Group: "example.org", Version: "v1", Resource: "gadgets"},
		Namespace: "ns", Name: "w", Operation: op,
	}
	if object != "" {
		req.Object = runtime.RawExtension{Raw: []byte(object)}
	}
	if oldObject != "" {
		req.OldObject = runtime.RawExtension{Raw: []byte(oldObject)}
	}
	out, _ := json.Marshal(admission.Review{
		TypeMeta: metav1.TypeMeta{APIVersion: admission.ReviewAPIVersion, Kind: admission.AdmissionReviewKind},
		Request:  &req,
	})
	return string(out)
}

// call POSTs body to h and returns the HTTP status and, for a 200, the
// AdmissionReview's response.
func admit(t *testing.T, h http.Handler, contentType, body string) (int, *admission.Response, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/validate", strings.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		return w.Code, nil, w.Body.String()
	}
	var out admission.Review
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
	assert.Equal(t, admission.ReviewAPIVersion, out.APIVersion)
	assert.Equal(t, admission.AdmissionReviewKind, out.Kind)
	require.NotNil(t, out.Response)
	return w.Code, out.Response, ""
}

// A request that is not a well-formed admission call never reaches the
// handler and is never allowed: each is answered with the status a client
// can act on and a message that says what was wrong.
// Diagram: none (admission happens before an object reaches step 1). client-go: controller-runtime admission.Webhook.ServeHTTP
func TestWebhookRefusesBadRequestsWithAClearStatus(t *testing.T) {
	var called atomic.Int32
	h := admission.Webhook(admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		called.Add(1)
		return admission.Allowed()
	}), ctrltest.Quiet)
	cases := []struct {
		name, method, contentType, body string
		code                            int
		message                         string
	}{
		{"GET", http.MethodGet, "application/json", review(admission.Create, `{}`, ""), 405, "called with POST"},
		{"text/plain", http.MethodPost, "text/plain", review(admission.Create, `{}`, ""), 400, `Content-Type is "text/plain", want application/json`},
		{"not JSON", http.MethodPost, "application/json", "<xml/>", 400, "not an AdmissionReview"},
		{"v1beta1", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x"}}`, 400, "set admissionReviewVersions: [v1]"},
		{"no request", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, 400, "has no request"},
		{"over 7 MiB", http.MethodPost, "application/json", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"` + strings.Repeat("x", 8<<20) + `"}}`, 413, "over 7340032 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/validate", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.contentType)
			w := httptest.NewRecorder()

			h.ServeHTTP(w, r)

			assert.Equal(t, tc.code, w.Code)
			assert.Contains(t, w.Body.String(), tc.message)
		})
	}
	assert.Zero(t, called.Load(), "no bad request reached the handler")
}

// The response carries the request's UID (the API server matches them) and
// a handler that panics refuses the request instead of killing the server or
// allowing it.
// Diagram: none. client-go: controller-runtime admission.Webhook (its panic recovery)
func TestWebhookEchoesTheUIDAndAPanicRefuses(t *testing.T) {
	h := admission.Webhook(admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		panic("nil map")
	}), ctrltest.Quiet)

	code, resp, _ := admit(t, h, "application/json; charset=utf-8", review(admission.Create, `{"spec":{}}`, ""))

	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, types.UID("uid-1"), resp.UID)
	assert.False(t, resp.Allowed)
	assert.Contains(t, resp.Result.Message, "the handler panicked: nil map")
}

// gadgetRules refuses a Gadget without a color, and a change of color.
type gadgetRules struct{ deleted atomic.Int32 }

func (*gadgetRules) ValidateCreate(_ context.Context, w *Gadget) ([]string, error) {
	if w.Spec.Color == "" {
		return []string{"gadgets are usually blue"}, apierrors.NewInvalid(gadgetGVK.GroupKind(), w.Name,
			fieldpath.ErrorList{fieldpath.Required(fieldpath.NewPath("spec", "color"), "every gadget has a color")})
	}
	return nil, nil
}

func (*gadgetRules) ValidateUpdate(_ context.Context, old, w *Gadget) ([]string, error) {
	if old.Spec.Color != w.Spec.Color {
		return nil, errors.New("spec.color cannot change")
	}
	return nil, nil
}

func (r *gadgetRules) ValidateDelete(_ context.Context, w *Gadget) ([]string, error) {
	r.deleted.Add(1)
	if w.Spec.Color == "gold" {
		return nil, errors.New("gold gadgets are kept")
	}
	return nil, nil
}

// A validating webhook decodes the request's objects into the Go type and
// asks the Validator: creates see the new object, updates the old and the
// new, deletes the stored one (which arrives as oldObject). A refusal carries
// the Validator's status (422 Invalid with its causes) or, for a plain error,
// 403 with its message; warnings reach the client either way. A request for
// another kind, or with an object that does not decode, is refused. Keys
// are read in their own case, as the API server reads them: "Color" beside
// "color" is not the color.
// Diagram: none. client-go: controller-runtime admission.WithValidator; apimachinery util/json (case-sensitive)
func TestValidatingWebhookAsksTheValidator(t *testing.T) {
	rules := &gadgetRules{}
	h := admission.Webhook(admission.ValidatingWebhook[*Gadget](gadgetGVK, rules), ctrltest.Quiet)
	blue, gold := `{"metadata":{"name":"w"},"spec":{"color":"blue"}}`, `{"metadata":{"name":"w"},"spec":{"color":"gold"}}`
	deployment := strings.Replace(review(admission.Create, blue, ""), `"group":"example.org","version":"v1","kind":"Gadget"`, `"group":"apps","version":"v1","kind":"Deployment"`, 1)
	cases := []struct {
		name, body string
		allowed    bool
		code       int32
		message    string
		warnings   []string
	}{
		{"valid create", review(admission.Create, blue, ""), true, 0, "", nil},
		{"invalid create", review(admission.Create, `{"metadata":{"name":"w"},"spec":{}}`, ""), false, 422, `Gadget.example.org "w" is invalid: spec.color: Required value: every gadget has a color`, []string{"gadgets are usually blue"}},
		{"allowed update", review(admission.Update, blue, blue), true, 0, "", nil},
		{"refused update", review(admission.Update, gold, blue), false, 403, "spec.color cannot change", nil},
		// The API server stores spec.color "gold" and drops "Color", a key of
		// another case; a validator must judge the same object.
		{"keys read in their own case", review(admission.Update, `{"metadata":{"name":"w"},"spec":{"color":"gold","Color":"blue"}}`, blue), false, 403, "spec.color cannot change", nil},
		{"allowed delete", review(admission.Delete, "", blue), true, 0, "", nil},
		{"refused delete", review(admission.Delete, "", gold), false, 403, "gold gadgets are kept", nil},
		{"another kind", deployment, false, 400, "this webhook admits example.org/v1, Kind=Gadget, not apps/v1, Kind=Deployment", nil},
		{"undecodable object", review(admission.Create, `{"spec":{"color":7}}`, ""), false, 400, "decoding the request's object", nil},
		{"update without oldObject", review(admission.Update, blue, ""), false, 400, "the request has no oldObject", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, _ := admit(t, h, "application/json", tc.body)

			assert.Equal(t, tc.allowed, resp.Allowed)
			assert.Equal(t, tc.warnings, resp.Warnings)
			if !tc.allowed {
				require.NotNil(t, resp.Result)
				assert.Equal(t, tc.code, resp.Result.Code)
				assert.Contains(t, resp.Result.Message, tc.message)
			}
		})
	}
	assert.Equal(t, int32(2), rules.deleted.Load())
}

// gadgetDefaults gives a Gadget a size of 3 and a "new" tag when it has none.
type gadgetDefaults struct{}

func (gadgetDefaults) Default(_ context.Context, w *Gadget) error {
	if w.Spec.Size == nil {
		three := int32(3)
		w.Spec.Size = &three
	}
	if w.Spec.Tags == nil {
		w.Spec.Tags = []string{"new"}
	}
	return nil
}

// A defaulting webhook answers with a JSON patch that holds only what the
// Defaulter changed: a field the Go type does not know (spec.extra) or
// encodes differently is left as sent, and a parent the object lacks is
// added whole. The patch, applied by the API server (here fakeapi's JSON
// patch), gives the defaulted object.
// Diagram: none. client-go: controller-runtime admission.WithDefaulter
func TestDefaultingWebhookPatchesOnlyWhatDefaultChanged(t *testing.T) {
	h := admission.Webhook(admission.DefaultingWebhook[*Gadget](gadgetGVK, gadgetDefaults{}), ctrltest.Quiet)
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	require.NoError(t, srv.Register(fakeapi.ResourceInfo{GVR: gadgetGVR, Kind: "Gadget", Namespaced: true}))
	cases := []struct {
		name, sent, patch string
	}{
		{"size and tags missing, an unknown field kept",
			`{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"a","namespace":"ns"},"spec":{"color":"red","extra":{"keep":true}}}`,
			`[{"op":"add","path":"/spec/size","value":3},{"op":"add","path":"/spec/tags","value":["new"]}]`},
		{"no spec at all",
			`{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"b","namespace":"ns"}}`,
			`[{"op":"add","path":"/spec","value":{"size":3,"tags":["new"]}}]`},
		{"spec null",
			`{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"c","namespace":"ns"},"spec":null}`,
			`[{"op":"add","path":"/spec","value":{"size":3,"tags":["new"]}}]`},
		{"nothing to default",
			`{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"d","namespace":"ns"},"spec":{"size":5,"tags":[]}}`,
			``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, _ := admit(t, h, "application/json", review(admission.Create, tc.sent, ""))

			require.True(t, resp.Allowed, "%+v", resp.Result)
			if tc.patch == "" {
				assert.Empty(t, resp.Patch)
				assert.Nil(t, resp.PatchType)
				return
			}
			assert.JSONEq(t, tc.patch, string(resp.Patch))
			require.NotNil(t, resp.PatchType)
			assert.Equal(t, "JSONPatch", *resp.PatchType)

			var sent unstructured.Unstructured
			require.NoError(t, sent.UnmarshalJSON([]byte(tc.sent)))
			_, err := srv.Resource(gadgetGVR).Namespace("ns").Create(t.Context(), &sent, metav1.CreateOptions{})
			require.NoError(t, err)
			patched, err := srv.Resource(gadgetGVR).Namespace("ns").Patch(t.Context(), sent.GetName(), types.JSONPatchType, resp.Patch, metav1.PatchOptions{})
			require.NoError(t, err, "the patch applies to the object as sent")
			size, _, _ := unstructured.NestedInt64(patched.(*unstructured.Unstructured).Object, "spec", "size")
			assert.Equal(t, int64(3), size)
			if strings.Contains(tc.sent, "extra") {
				keep, _, _ := unstructured.NestedBool(patched.(*unstructured.Unstructured).Object, "spec", "extra", "keep")
				assert.True(t, keep, "a field the Go type does not know survives")
			}
		})
	}
	_, resp, _ := admit(t, h, "application/json", review(admission.Delete, "", `{"spec":{}}`))
	assert.True(t, resp.Allowed, "a delete is not defaulted")
	assert.Empty(t, resp.Patch)
}

// A webhook for a type that is not a pointer is a wiring mistake, caught
// when the webhook is built rather than on the first request.
// Diagram: none. client-go: none
func TestWebhookOfANonPointerTypePanicsAtWiring(t *testing.T) {
	assert.PanicsWithValue(t, "controller: webhook type parameter admission_test.notAPointer must be a pointer to a struct, such as *Foo", func() {
		admission.ValidatingWebhook[notAPointer](gadgetGVK, nil)
	})
}

type notAPointer struct{ runtime.Object }
