package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// List returns the collection as one list object: typed (e.g. *FooList) if the scheme
// knows the list kind, else *unstructured.UnstructuredList. Its ListMeta.ResourceVersion
// is the snapshot's resourceVersion and meta.ExtractList works on it. A non-empty
// Continue in the result means there are more pages (when opts.Limit was set).
//
// Step 1 (list): GET /api/v1/namespaces/ns/configmaps?resourceVersion=0&limit=500.
func (r *ResourceClient) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	opts.Watch = false
	req := &request{verb: "list", method: http.MethodGet, namespace: r.namespace, query: listQuery(opts)}
	resp, err := r.send(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, r.readStatusError(resp, req)
	}
	dec := listDecoder{scheme: r.client.scheme, gv: r.gvr.GroupVersion(), resource: r.gvr.Resource, want: r.resourceKind()}
	list, err := dec.decode(resp.Body)
	resp.Body.Close() // before discovery, which may reuse the connection
	if err == nil && dec.want == "" {
		// Nothing said what the resource holds yet: discovery may, now that the
		// server has answered (resource_kind.go).
		err = dec.checkKind(list.GetObjectKind().GroupVersionKind().Kind, r.discoverKind(ctx))
	}
	if err != nil {
		var expired *timeoutError
		var tooLarge *tooLargeError
		switch {
		case errors.As(err, &expired):
			return nil, expired
		case errors.As(err, &tooLarge):
			return nil, tooLarge
		}
		return nil, fmt.Errorf("client: list %s: %w", r.gvr.Resource, err)
	}
	r.client.listed.Store(r.gvr, strings.TrimSuffix(list.GetObjectKind().GroupVersionKind().Kind, "List"))
	return list, nil
}

// Get returns one object by name.
func (r *ResourceClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (runtime.Object, error) {
	if err := checkName("get", name); err != nil {
		return nil, err
	}
	data, err := r.do(ctx, &request{verb: "get", method: http.MethodGet, namespace: r.namespace, name: name, query: getQuery(opts)})
	if err != nil {
		return nil, err
	}
	return r.client.decodeObject(data)
}

// Create POSTs obj to the collection and returns the object as stored (with uid,
// resourceVersion, creationTimestamp). obj may be typed or unstructured. It goes to the
// handle's namespace, or to obj's own namespace when the handle has none.
func (r *ResourceClient) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	ns, _, err := r.target(obj)
	if err != nil {
		return nil, fmt.Errorf("client: create: %w", err)
	}
	body, err := r.encodeObject(obj)
	if err != nil {
		return nil, err
	}
	data, err := r.do(ctx, &request{verb: "create", method: http.MethodPost, namespace: ns,
		query: createQuery(opts), body: body, contentType: "application/json"})
	if err != nil {
		return nil, err
	}
	return r.client.decodeObject(data)
}

// Update PUTs obj over the stored object of the same name. obj must carry the
// resourceVersion it was read at; a stale one is a 409 Conflict.
func (r *ResourceClient) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	return r.update(ctx, "update", "", obj, opts)
}

// UpdateStatus PUTs obj to the status subresource: only its status is written.
func (r *ResourceClient) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	return r.update(ctx, "update status", "status", obj, opts)
}

func (r *ResourceClient) update(ctx context.Context, verb, subresource string, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	ns, name, err := r.target(obj)
	if err != nil {
		return nil, fmt.Errorf("client: %s: %w", verb, err)
	}
	if err := checkName(verb, name); err != nil {
		return nil, err
	}
	body, err := r.encodeObject(obj)
	if err != nil {
		return nil, err
	}
	data, err := r.do(ctx, &request{verb: verb, method: http.MethodPut, namespace: ns, name: name, subresource: subresource,
		query: updateQuery(opts), body: body, contentType: "application/json"})
	if err != nil {
		return nil, err
	}
	return r.client.decodeObject(data)
}

// Patch applies data to the named object; pt is the patch's media type, normally
// types.MergePatchType (RFC 7386, application/merge-patch+json).
func (r *ResourceClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	if err := checkName("patch", name); err != nil {
		return nil, err
	}
	if pt == "" {
		return nil, fmt.Errorf("client: patch: empty patch type")
	}
	resp, err := r.do(ctx, &request{verb: "patch", method: http.MethodPatch, namespace: r.namespace, name: name,
		query: patchQuery(opts), body: data, contentType: string(pt)})
	if err != nil {
		return nil, err
	}
	return r.client.decodeObject(resp)
}

// Delete deletes the named object. The options travel as a JSON DeleteOptions body,
// as kubectl and client-go send them. The server's answer (a Success Status, or the
// object when finalizers hold it) is not returned.
func (r *ResourceClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := checkName("delete", name); err != nil {
		return err
	}
	opts.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}
	body, err := json.Marshal(opts)
	if err != nil {
		return fmt.Errorf("client: delete: encoding options: %w", err)
	}
	_, err = r.do(ctx, &request{verb: "delete", method: http.MethodDelete, namespace: r.namespace, name: name,
		body: body, contentType: "application/json"})
	return err
}

// target returns the namespace a write goes to (the handle's, else the object's own)
// and the object's name.
func (r *ResourceClient) target(obj runtime.Object) (namespace, name string, err error) {
	if obj == nil {
		return "", "", fmt.Errorf("nil object")
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", "", fmt.Errorf("object has no metadata: %w", err)
	}
	namespace = r.namespace
	if namespace == "" {
		namespace = m.GetNamespace()
	}
	return namespace, m.GetName(), nil
}

// checkName rejects names that cannot be one URL path segment.
func checkName(verb, name string) error {
	if name == "" {
		return fmt.Errorf("client: %s: object name is empty", verb)
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) > 0 {
		return fmt.Errorf("client: %s: invalid name %q: %s", verb, name, strings.Join(msgs, "; "))
	}
	return nil
}
