package manager

import (
	"context"
	"fmt"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// apiReader is the [Reader] of Manager.GetAPIReader: every call is a
// request to the API server.
type apiReader struct{ m *Manager }

// GetAPIReader returns a [Reader] that bypasses the cache: every Get and
// List is a request to the API server, and returns what the server holds
// now. Use it for the rare read that must be fresh (right after someone
// else's write, or for an object the cache does not watch); everything else
// reads from [Manager.GetClient], which costs no request.
//
// client-go: controller-runtime pkg/manager.Manager.GetAPIReader.
func (m *Manager) GetAPIReader() Reader { return apiReader{m: m} }

func (r apiReader) Get(ctx context.Context, key types.NamespacedName, obj controller.Object) error {
	_, gvr, err := r.m.resourceFor(obj)
	if err != nil {
		return err
	}
	api, err := r.m.api(gvr, key.Namespace)
	if err != nil {
		return err
	}
	out, err := api.Get(ctx, key.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return into(out, obj)
}

func (r apiReader) List(ctx context.Context, list ObjectList, opts ...ListOption) error {
	gvk, err := r.m.listItemKind(list)
	if err != nil {
		return err
	}
	gvr, err := r.m.resourceForKind(gvk)
	if err != nil {
		return err
	}
	o := newListOptions(opts)
	api, err := r.m.api(gvr, o.namespace)
	if err != nil {
		return err
	}
	if o.selector == labels.Nothing() {
		return setList(list, nil)
	}
	var lo metav1.ListOptions
	if o.selector != nil && !o.selector.Empty() {
		lo.LabelSelector = o.selector.String()
	}
	out, err := api.List(ctx, lo)
	if err != nil {
		return err
	}
	found, err := meta.ExtractList(out)
	if err != nil {
		return fmt.Errorf("controller: client: list %s: %w", ctrlutil.ResourceName(gvr), err)
	}
	items := make([]runtime.Object, 0, len(found))
	for _, f := range found {
		item, err := newListItem(list)
		if err != nil {
			return err
		}
		if err := into(f, item); err != nil {
			return err
		}
		items = append(items, item)
	}
	if err := setList(list, items); err != nil {
		return err
	}
	if lm, err := meta.ListAccessor(out); err == nil {
		list.SetResourceVersion(lm.GetResourceVersion())
	}
	return nil
}

// setList sets list's items.
func setList(list ObjectList, items []runtime.Object) error {
	if err := meta.SetList(list, items); err != nil {
		return fmt.Errorf("controller: client: %T: %w", list, err)
	}
	return nil
}
