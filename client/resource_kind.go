package client

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The kind a resource holds, which its lists and watches are checked against.
//
// It is a fact about the resource (configmaps holds ConfigMap), so it comes
// from what describes resources, never from an answer about one:
//
//  1. discovery, asked once per resource after the first list that needed it
//     (GET /api/v1: configmaps has kind ConfigMap), and kept;
//  2. else the scheme: a Go type registered with its list type whose plural
//     is the resource (ConfigMap and ConfigMapList for configmaps).
//
// A list of another kind is refused and changes nothing, so one wrong answer
// cannot make the right ones after it fail. When neither source knows (a
// server without discovery, a resource it does not list), a list is checked
// only for being a list of the resource's group and version whose items are
// of its kind, and a watch expects the kind of the last list accepted (a
// relist replaces it), else its first object's.

// resourceKind returns the kind this resource holds as far as the client knows
// without asking the server: discovery's earlier answer, else the scheme's.
// "" means unknown.
func (r *ResourceClient) resourceKind() string {
	if k, ok := r.client.kinds.Load(r.gvr); ok && k.(string) != "" {
		return k.(string)
	}
	return kindInScheme(r.client.scheme, r.gvr)
}

// discoverKind asks discovery which kind this resource holds, unless it has
// answered for it before, and returns the answer ("" if it does not say). An
// answer is kept, a resource it does not list and a server without discovery
// included; a failure that may pass (no answer, 429, 5xx) is not, so the next
// list asks again.
func (r *ResourceClient) discoverKind(ctx context.Context) string {
	c := r.client
	if k, ok := c.kinds.Load(r.gvr); ok {
		return k.(string)
	}
	list, err := c.ServerResourcesForGroupVersion(ctx, r.gvr.GroupVersion())
	if err != nil {
		if mayPass(err) {
			c.logger.Debug("client: discovery failed; the resource's kind stays unknown for now", "resource", r.gvr.String(), "err", err)
			return ""
		}
		c.kinds.Store(r.gvr, "")
		return ""
	}
	kind := ""
	for _, res := range list.APIResources {
		if res.Name == r.gvr.Resource {
			kind = res.Kind
			break
		}
	}
	c.kinds.Store(r.gvr, kind)
	return kind
}

// mayPass says whether a discovery error may be gone on the next try: the
// server did not answer, or answered 429 or 5xx.
func mayPass(err error) bool {
	if errors.Is(err, ErrNotAPIServer) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	code := status.Status().Code
	return code == 429 || code >= 500
}

// kindInScheme returns the kind scheme registers for gvr: the one kind of
// gvr's group and version that has a list type and whose plural is gvr's
// resource. "" if none does, or more than one.
func kindInScheme(scheme *runtime.Scheme, gvr schema.GroupVersionResource) string {
	if scheme == nil {
		return ""
	}
	gv := gvr.GroupVersion()
	known := scheme.KnownTypes(gv)
	found := ""
	for kind := range known {
		if strings.HasSuffix(kind, "List") {
			continue
		}
		if _, isList := known[kind+"List"]; !isList {
			continue
		}
		if plural, _ := meta.UnsafeGuessKindToResource(gv.WithKind(kind)); plural.Resource != gvr.Resource {
			continue
		}
		if found != "" {
			return "" // two kinds claim the resource: the scheme cannot say
		}
		found = kind
	}
	return found
}

// watchKind is the kind a watch on this resource expects: the resource's, else
// the last list's (the watch goes on from that list), else "" (the stream's
// first object's).
func (r *ResourceClient) watchKind() string {
	if k := r.resourceKind(); k != "" {
		return k
	}
	if k, ok := r.client.listed.Load(r.gvr); ok {
		return k.(string)
	}
	return ""
}
