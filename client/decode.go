package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/informerlab/informerlab/internal/kubejson"
)

// Every object the client reads is decoded as the API server decodes it
// (kubejson.Unmarshal): a key matches a field only in its own case, so
// {"data":...,"Data":...} is read as the "data" the server stored, and a key
// given twice keeps its last value, as on the server. Only an object's kind
// and apiVersion may not be given twice (readTypeHead): they decide what the
// object is checked and decoded as.

// typeHead is the part of every API object that says what it is.
type typeHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// readTypeHead reads the kind and apiVersion of the JSON object data. An object
// that gives either twice is refused: which of the two it "is" would depend on
// the reader.
func readTypeHead(data []byte) (typeHead, error) {
	var head typeHead
	dups, err := kjson.UnmarshalStrict(data, &head, kjson.DisallowDuplicateFields)
	if err != nil {
		return typeHead{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if len(dups) > 0 {
		return typeHead{}, fmt.Errorf("%w (an object names its kind and apiVersion once)", errors.Join(dups...))
	}
	return head, nil
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
	head, err := readTypeHead(data)
	if err != nil {
		return nil, fmt.Errorf("client: response: %w", err)
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
		if err := kubejson.Unmarshal(data, obj); err != nil {
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
	retryAfter := retryAfterSeconds(resp)

	var st metav1.Status
	if err := kubejson.Unmarshal(body, &st); err == nil && st.Kind == "Status" {
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
