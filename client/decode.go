package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// typeHead is the part of every API object that says what it is.
type typeHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func (h typeHead) gvk() (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(h.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("client: object apiVersion %q: %w", h.APIVersion, err)
	}
	return gv.WithKind(h.Kind), nil
}

// decodeObject decodes one object that carries its own kind and apiVersion (the body
// of get, create, update and patch): typed if the scheme knows the kind, else
// unstructured.
func (c *Client) decodeObject(data []byte) (runtime.Object, error) {
	var head typeHead
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("client: response is not a JSON object: %w", err)
	}
	if head.Kind == "" || head.APIVersion == "" {
		return nil, fmt.Errorf("client: response object has no kind or apiVersion")
	}
	gvk, err := head.gvk()
	if err != nil {
		return nil, err
	}
	return decodeAs(c.scheme, data, gvk)
}

// decodeAs decodes data as an object of kind gvk: into its Go type if scheme knows
// the kind, else into an *unstructured.Unstructured.
func decodeAs(scheme *runtime.Scheme, data []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if scheme != nil && scheme.Recognizes(gvk) {
		obj, err := scheme.New(gvk)
		if err != nil {
			return nil, fmt.Errorf("client: %v: %w", gvk, err)
		}
		if err := json.Unmarshal(data, obj); err != nil {
			return nil, fmt.Errorf("client: decoding %v: %w", gvk, err)
		}
		return obj, nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("client: decoding %v: %w", gvk, err)
	}
	return u, nil
}

// encodeObject marshals obj for a write. A typed object with an empty kind and
// apiVersion gets them from the scheme (on a copy), so the server sees what it is.
func (r *ResourceClient) encodeObject(obj runtime.Object) ([]byte, error) {
	if obj == nil {
		return nil, fmt.Errorf("client: nil object")
	}
	if s := r.client.scheme; s != nil && obj.GetObjectKind().GroupVersionKind().Empty() {
		kinds, _, err := s.ObjectKinds(obj)
		if err == nil {
			for _, k := range kinds {
				if k.GroupVersion() == r.gvr.GroupVersion() {
					obj = obj.DeepCopyObject()
					obj.GetObjectKind().SetGroupVersionKind(k)
					break
				}
			}
		}
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("client: encoding object: %w", err)
	}
	return data, nil
}

// statusError turns a non-2xx response into an *apierrors.StatusError: the server's own
// metav1.Status when the body is one, else a generic error built from the status code,
// so apierrors.IsNotFound, IsConflict, IsGone, IsTooManyRequests, ... work either way.
func (r *ResourceClient) statusError(resp *http.Response, body []byte, req *request) error {
	retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))

	var st metav1.Status
	if err := json.Unmarshal(body, &st); err == nil && st.Kind == "Status" {
		if st.Code == 0 {
			st.Code = int32(resp.StatusCode)
		}
		if retryAfter > 0 {
			if st.Details == nil {
				st.Details = &metav1.StatusDetails{}
			}
			if st.Details.RetryAfterSeconds == 0 {
				st.Details.RetryAfterSeconds = int32(retryAfter)
			}
		}
		return &apierrors.StatusError{ErrStatus: st}
	}

	msg := strings.TrimSpace(string(body))
	if len(msg) > 1024 {
		msg = msg[:1024] + "..."
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, req.method, r.gvr.GroupResource(), req.name, msg, retryAfter, true)
}
