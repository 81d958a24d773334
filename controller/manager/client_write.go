package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// The writes of the Client go straight to the API server. Each one fills
// obj with what the server returned (the new resourceVersion, uid,
// generation, ...), so obj can be written again or waited for.

// Create creates obj on the API server.
func (c *Client) Create(ctx context.Context, obj controller.Object) error {
	return c.write(ctx, "create", obj, func(api controller.ResourceInterface) (runtime.Object, error) {
		return api.Create(ctx, obj, metav1.CreateOptions{})
	})
}

// Update replaces obj on the API server. obj's resourceVersion must be the
// stored one (a Conflict API error otherwise): read, modify, update. On a
// resource with a status subresource, status changes are ignored.
func (c *Client) Update(ctx context.Context, obj controller.Object) error {
	return c.write(ctx, "update", obj, func(api controller.ResourceInterface) (runtime.Object, error) {
		return api.Update(ctx, obj, metav1.UpdateOptions{})
	})
}

// UpdateStatus replaces obj's status, and nothing else, through the status
// subresource.
//
// client-go: controller-runtime Client.Status().Update.
func (c *Client) UpdateStatus(ctx context.Context, obj controller.Object) error {
	return c.write(ctx, "update status of", obj, func(api controller.ResourceInterface) (runtime.Object, error) {
		return api.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	})
}

// Patch applies patch to the object named like obj. Only the fields in the
// patch change, so fields this program does not know survive.
func (c *Client) Patch(ctx context.Context, obj controller.Object, patch Patch) error {
	if patch == nil {
		return errors.New("controller: client: patch is nil")
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	return c.write(ctx, "patch", obj, func(api controller.ResourceInterface) (runtime.Object, error) {
		return api.Patch(ctx, obj.GetName(), patch.Type(), data, metav1.PatchOptions{})
	})
}

// Delete deletes obj from the API server (or, if it has finalizers, marks
// it for deletion). Its dependents are garbage collected.
func (c *Client) Delete(ctx context.Context, obj controller.Object) error {
	_, gvr, err := c.m.resourceFor(obj)
	if err != nil {
		return err
	}
	api, err := c.m.api(gvr, obj.GetNamespace())
	if err != nil {
		return err
	}
	return api.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
}

// write sends obj with do and fills obj with the server's answer.
func (c *Client) write(ctx context.Context, verb string, obj controller.Object, do func(controller.ResourceInterface) (runtime.Object, error)) error {
	gvk, gvr, err := c.m.resourceFor(obj)
	if err != nil {
		return err
	}
	api, err := c.m.api(gvr, obj.GetNamespace())
	if err != nil {
		return err
	}
	// The server needs apiVersion and kind; typed objects often lack them.
	if obj.GetObjectKind().GroupVersionKind().Kind == "" {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	out, err := do(api)
	if err != nil {
		return err
	}
	if err := into(out, obj); err != nil {
		return fmt.Errorf("controller: client: %s %s: %w", verb, ctrlutil.ResourceName(gvr), err)
	}
	return nil
}

// api returns the API handle of gvr in ns.
func (m *Manager) api(gvr schema.GroupVersionResource, ns string) (controller.ResourceInterface, error) {
	if m.newClient == nil {
		return nil, errors.New("controller: client: the Manager has no API client: set ManagerOptions.NewClient")
	}
	api := m.newClient(gvr, ns)
	if api == nil {
		return nil, fmt.Errorf("controller: client: NewClient returned no handle for %s", ctrlutil.ResourceName(gvr))
	}
	return api, nil
}

// Patch is a patch for [Client.Patch]: its type and its body for an
// object.
//
// client-go: controller-runtime pkg/client.Patch.
type Patch interface {
	Type() types.PatchType
	Data(obj controller.Object) ([]byte, error)
}

// MergeFrom returns a JSON merge patch (RFC 7386) that turns original into
// the object it is applied to: every field that differs, and null for every
// field removed. Read the object, keep a copy, modify, then Patch:
//
//	original := foo.DeepCopy()
//	foo.Spec.Replicas = 3
//	err := c.Patch(ctx, foo, manager.MergeFrom(original))
//
// Lists are replaced whole, as merge patches do. The patch carries no
// resourceVersion, so it applies whatever changed meanwhile.
//
// client-go: controller-runtime pkg/client.MergeFrom.
func MergeFrom(original controller.Object) Patch {
	return mergeFrom{original: original}
}

type mergeFrom struct{ original controller.Object }

func (mergeFrom) Type() types.PatchType { return types.MergePatchType }

func (p mergeFrom) Data(obj controller.Object) ([]byte, error) {
	if p.original == nil {
		return nil, errors.New("controller: client: MergeFrom: original is nil")
	}
	before, err := toMap(p.original)
	if err != nil {
		return nil, err
	}
	after, err := toMap(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(mergePatch(before, after))
}

// RawPatch returns a patch of type pt with data as its body, as it is.
//
// client-go: controller-runtime pkg/client.RawPatch.
func RawPatch(pt types.PatchType, data []byte) Patch {
	return rawPatch{pt: pt, data: data}
}

type rawPatch struct {
	pt   types.PatchType
	data []byte
}

func (p rawPatch) Type() types.PatchType                  { return p.pt }
func (p rawPatch) Data(controller.Object) ([]byte, error) { return p.data, nil }

// toMap returns obj as JSON-shaped maps.
func toMap(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.Object, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("controller: client: %T: %w", obj, err)
	}
	return m, nil
}

// mergePatch returns the merge patch from before to after: changed and new
// fields, objects patched recursively, removed fields as null.
func mergePatch(before, after map[string]any) map[string]any {
	patch := map[string]any{}
	for k, a := range after {
		b, ok := before[k]
		if !ok {
			patch[k] = a
			continue
		}
		am, aIsMap := a.(map[string]any)
		bm, bIsMap := b.(map[string]any)
		if aIsMap && bIsMap {
			if sub := mergePatch(bm, am); len(sub) > 0 {
				patch[k] = sub
			}
			continue
		}
		if !reflect.DeepEqual(a, b) {
			patch[k] = a
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			patch[k] = nil
		}
	}
	return patch
}
