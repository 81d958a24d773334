package fakeapi

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// ResourceClient is an in-process handle on one resource, optionally narrowed
// to a namespace. It has the same methods as the HTTP client's
// ResourceClient, and List and Watch make it a reflector.ListerWatcher.
//
// Objects go in and come out as deep copies: typed when the server's Scheme
// knows the resource's Kind and ListKind, *unstructured.Unstructured (lists:
// *unstructured.UnstructuredList) otherwise. Inputs may be either. Errors are
// *apierrors.StatusError values, as over HTTP. Every call first waits for
// the injected latency and consumes a pending FailNext for its verb.
//
// A ResourceClient is safe for concurrent use.
//
// client-go: dynamic.NamespaceableResourceInterface (dynamic.Interface.Resource).
type ResourceClient struct {
	s      *Server
	gvr    schema.GroupVersionResource
	ns     string
	silent bool
}

// Resource returns a handle on gvr. An unregistered gvr is reported by each
// call as 404 NotFound.
func (s *Server) Resource(gvr schema.GroupVersionResource) *ResourceClient {
	return &ResourceClient{s: s, gvr: gvr}
}

// Namespace returns a handle narrowed to ns ("" = all namespaces, or a
// cluster-scoped resource).
func (c *ResourceClient) Namespace(ns string) *ResourceClient {
	cc := *c
	cc.ns = ns
	return &cc
}

func (c *ResourceClient) start(ctx context.Context, verb string) (*resource, error) {
	if err := c.s.begin(ctx, verb); err != nil {
		return nil, err
	}
	return c.s.lookup(c.gvr)
}

// List returns the objects matching opts, as a list whose
// metadata.resourceVersion is the snapshot's (see list.go for the
// resourceVersion, limit and continue rules).
func (c *ResourceClient) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	r, err := c.start(ctx, "list")
	if err != nil {
		return nil, err
	}
	lr, err := c.s.list(r, c.ns, opts)
	if err != nil {
		return nil, err
	}
	return c.s.outputList(r, lr, c.s.typed(r))
}

// Watch opens a watch (see watch_start.go for where it starts). The watch
// ends on Stop, when ctx is cancelled, at opts.TimeoutSeconds, when the
// server cuts it off or a fault ends it, and on Server.Close; its channel
// is then closed.
func (c *ResourceClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r, err := c.start(ctx, "watch")
	if err != nil {
		return nil, err
	}
	w, err := c.s.watch(ctx, r, c.ns, opts, c.s.typed(r))
	if err != nil {
		// Not w: a nil *watcher in a watch.Interface is not a nil
		// interface, and a caller that checks w != nil would Stop it.
		return nil, err
	}
	return w, nil
}

// Get returns one object.
func (c *ResourceClient) Get(ctx context.Context, name string, _ metav1.GetOptions) (runtime.Object, error) {
	r, err := c.start(ctx, "get")
	if err != nil {
		return nil, err
	}
	o, err := c.s.get(r, c.ns, name)
	if err != nil {
		return nil, err
	}
	return c.s.output(r, o, c.s.typed(r))
}

// Create stores a new object and returns it as stored (uid,
// creationTimestamp, resourceVersion, generated name, and generation 1 on a
// resource with a status subresource).
func (c *ResourceClient) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	if err := validateDirective("CreateOptions", opts.FieldValidation); err != nil {
		return nil, err
	}
	return c.write(ctx, "create", obj, opts.DryRun, func(r *resource, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return c.s.create(r, c.ns, u, c.silent, &fieldCheck{directive: opts.FieldValidation})
	})
}

// Update replaces an object. A non-empty metadata.resourceVersion must be the
// stored one (409 Conflict otherwise); an empty one updates unconditionally.
// On a resource with a status subresource, status changes are ignored.
func (c *ResourceClient) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if err := validateDirective("UpdateOptions", opts.FieldValidation); err != nil {
		return nil, err
	}
	return c.write(ctx, "update", obj, opts.DryRun, func(r *resource, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return c.s.update(r, c.ns, u, false, c.silent, &fieldCheck{directive: opts.FieldValidation})
	})
}

// UpdateStatus replaces an object's status and nothing else. Resources
// without a status subresource answer 404.
func (c *ResourceClient) UpdateStatus(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	if err := validateDirective("UpdateOptions", opts.FieldValidation); err != nil {
		return nil, err
	}
	return c.write(ctx, "update", obj, opts.DryRun, func(r *resource, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return c.s.update(r, c.ns, u, true, c.silent, &fieldCheck{directive: opts.FieldValidation})
	})
}

// Patch applies a merge, strategic merge (by the resource's Go type) or JSON patch.
func (c *ResourceClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	r, err := c.start(ctx, "patch")
	if err != nil {
		return nil, err
	}
	if err := checkDryRun(opts.DryRun); err != nil {
		return nil, err
	}
	if err := validateDirective("PatchOptions", opts.FieldValidation); err != nil {
		return nil, err
	}
	o, err := c.s.patch(r, c.ns, name, pt, data, false, c.silent, &fieldCheck{directive: opts.FieldValidation})
	if err != nil {
		return nil, err
	}
	return c.s.output(r, o, c.s.typed(r))
}

// Delete deletes an object, or, if it has finalizers, marks it with a
// deletionTimestamp. Dependents are garbage collected unless
// opts.PropagationPolicy is Orphan.
func (c *ResourceClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	r, err := c.start(ctx, "delete")
	if err != nil {
		return err
	}
	if err := checkDryRun(opts.DryRun); err != nil {
		return err
	}
	_, _, err = c.s.delete(r, c.ns, name, opts, c.silent)
	return err
}

func (c *ResourceClient) write(ctx context.Context, verb string, obj runtime.Object, dryRun []string,
	do func(*resource, *unstructured.Unstructured) (*unstructured.Unstructured, error)) (runtime.Object, error) {
	r, err := c.start(ctx, verb)
	if err != nil {
		return nil, err
	}
	if err := checkDryRun(dryRun); err != nil {
		return nil, err
	}
	u, err := canonical(obj)
	if err != nil {
		return nil, err
	}
	o, err := do(r, u)
	if err != nil {
		return nil, err
	}
	return c.s.output(r, o, c.s.typed(r))
}

// checkDryRun rejects dry-run requests, which the server does not model.
func checkDryRun(dryRun []string) error {
	if len(dryRun) == 0 {
		return nil
	}
	return errInvalidOptions("CreateOptions", field.ErrorList{field.NotSupported(field.NewPath("dryRun"), dryRun, []string{})})
}
