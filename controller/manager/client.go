package manager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// Reader reads objects: [Client] from the Manager's cache, the reader of
// [Manager.GetAPIReader] from the API server. obj and list are filled in:
// typed objects (via the Scheme) and unstructured ones both work, whatever
// form the cache or the server holds.
//
// client-go: controller-runtime pkg/client.Reader.
type Reader interface {
	// Get fills obj with the object called key of obj's kind, or returns a
	// NotFound API error (apierrors.IsNotFound).
	Get(ctx context.Context, key types.NamespacedName, obj controller.Object) error
	// List fills list (a FooList, typed or unstructured) with the objects
	// of its items' kind that the options select.
	List(ctx context.Context, list ObjectList, opts ...ListOption) error
}

// ObjectList is a list of objects: a typed FooList or an
// *unstructured.UnstructuredList.
//
// client-go: controller-runtime pkg/client.ObjectList.
type ObjectList interface {
	metav1.ListInterface
	runtime.Object
}

// ListOption narrows a List: [InNamespace], [MatchingLabels],
// [MatchingLabelsSelector].
//
// client-go: controller-runtime pkg/client.ListOption.
type ListOption interface {
	applyToList(*listOptions)
}

type listOptions struct {
	namespace string
	selector  labels.Selector
}

func newListOptions(opts []ListOption) listOptions {
	var o listOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyToList(&o)
		}
	}
	return o
}

// InNamespace lists one namespace only.
//
// client-go: controller-runtime pkg/client.InNamespace.
type InNamespace string

func (n InNamespace) applyToList(o *listOptions) { o.namespace = string(n) }

// MatchingLabels lists the objects that carry all these labels.
//
// client-go: controller-runtime pkg/client.MatchingLabels.
type MatchingLabels map[string]string

func (l MatchingLabels) applyToList(o *listOptions) {
	o.selector = labels.SelectorFromSet(labels.Set(l))
}

// MatchingLabelsSelector lists the objects whose labels match Selector.
//
// client-go: controller-runtime pkg/client.MatchingLabelsSelector.
type MatchingLabelsSelector struct{ labels.Selector }

func (s MatchingLabelsSelector) applyToList(o *listOptions) { o.selector = s.Selector }

// Client is the Manager's split client: it reads from the Manager's cache
// and writes to the API server.
//
//	Get, List ---------> cache: the informer of the object's kind (started on first use)
//	Create, Update,
//	UpdateStatus,
//	Patch, Delete -----> API server (Options.NewClient)
//
// Reads cost no request: a reconciler may read as often as it likes. The
// first read of a kind creates its informer, starts it (once the Manager has
// started) and waits for it to sync, for at most CacheSyncTimeout. A kind is
// known from GetInformer (the Builder's For, Owns and Watches) or from the
// RESTMapper; an unknown kind is an error that meta.IsNoMatchError
// recognises.
//
// Reads return copies: Get and List deep-copy every object out of the cache,
// so a reconciler can modify what it read and write it back without
// corrupting what every other reader sees. The cost is one deep copy per
// object read, an allocation for every map and slice in it, and a List
// copies every item: BenchmarkClientGet measured about 3µs, 1.7kB and 13
// allocations for a copying Get of a ConfigMap with ten data keys and
// three labels, against 0.5µs and 2 allocations without the copy.
// [Client.GetShared] and [Client.ListShared] return the cache's own
// objects, for hot paths that only look and never modify.
//
// A read right after a write can be stale: the write reaches the cache only
// when its watch event has travelled through the informer.
// [Client.WaitForResourceVersion] waits until it has.
//
// A Client is safe for concurrent use. Get it from [Manager.GetClient].
//
// client-go: controller-runtime pkg/client.Client as built by the manager
// (cache reader + API writer).
type Client struct {
	m *Manager

	mu sync.Mutex // guards trackers
	// trackers follow the informers that WaitForResourceVersion or
	// WaitForDeletion has been asked about, one per resource.
	trackers map[schema.GroupVersionResource]*cacheTracker
}

// GetClient returns the Manager's [Client]: reads from the cache, writes to
// the API server.
//
// client-go: controller-runtime pkg/manager.Manager.GetClient.
func (m *Manager) GetClient() *Client { return m.client }

// Get fills obj with a copy of the cached object called key, of obj's kind.
// A missing object is a NotFound API error (apierrors.IsNotFound).
func (c *Client) Get(ctx context.Context, key types.NamespacedName, obj controller.Object) error {
	cached, err := c.GetShared(ctx, key, obj)
	if err != nil {
		return err
	}
	return into(cached, obj)
}

// List fills list with copies of the cached objects of its items' kind that
// the options select, ordered by namespace and name. The list's
// resourceVersion is left empty: a cache has no single snapshot version.
func (c *Client) List(ctx context.Context, list ObjectList, opts ...ListOption) error {
	gvk, err := c.m.listItemKind(list)
	if err != nil {
		return err
	}
	shared, err := c.listShared(ctx, gvk, opts)
	if err != nil {
		return err
	}
	items := make([]runtime.Object, 0, len(shared))
	for _, obj := range shared {
		item, err := newListItem(list)
		if err != nil {
			return err
		}
		if err := into(obj, item); err != nil {
			return err
		}
		items = append(items, item)
	}
	return setList(list, items)
}

// GetShared returns the cache's own object called key, of example's kind,
// without copying it. It is shared with every other reader and the
// informer: never modify it (DeepCopyObject first). example only names the
// kind; it is not filled in.
func (c *Client) GetShared(ctx context.Context, key types.NamespacedName, example controller.Object) (controller.Object, error) {
	gvk, gvr, err := c.m.resourceFor(example)
	if err != nil {
		return nil, err
	}
	if err := c.m.checkCacheNamespace(key.Namespace); err != nil {
		return nil, err
	}
	inf, err := c.informerFor(ctx, gvk, gvr)
	if err != nil {
		return nil, err
	}
	obj, err := indexer.NewLister(inf.GetIndexer(), gvr.GroupResource()).Namespace(key.Namespace).Get(key.Name)
	if err != nil {
		return nil, err
	}
	return cachedObject(obj)
}

// ListShared returns the cache's own objects of example's kind that the
// options select, ordered by namespace and name, without copying them.
// Never modify them.
func (c *Client) ListShared(ctx context.Context, example controller.Object, opts ...ListOption) ([]controller.Object, error) {
	gvk, ok := c.m.objectKind(example)
	if !ok {
		_, _, err := c.m.resourceFor(example)
		return nil, err
	}
	return c.listShared(ctx, gvk, opts)
}

func (c *Client) listShared(ctx context.Context, gvk schema.GroupVersionKind, opts []ListOption) ([]controller.Object, error) {
	gvr, err := c.m.resourceForKind(gvk)
	if err != nil {
		return nil, err
	}
	o := newListOptions(opts)
	if err := c.m.checkCacheNamespace(o.namespace); err != nil {
		return nil, err
	}
	inf, err := c.informerFor(ctx, gvk, gvr)
	if err != nil {
		return nil, err
	}
	found, err := indexer.NewLister(inf.GetIndexer(), gvr.GroupResource()).Namespace(o.namespace).List(o.selector)
	if err != nil {
		return nil, err
	}
	objs := make([]controller.Object, 0, len(found))
	for _, f := range found {
		obj, err := cachedObject(f)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	slices.SortFunc(objs, func(a, b controller.Object) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return objs, nil
}

// errCacheNotStarted is returned by reads of a kind whose informer cannot
// sync because the Manager has not started its cache.
var errCacheNotStarted = errors.New("controller: client: the Manager's cache has not started: read from the cache inside Start (in a Reconcile or a Runnable), or use GetAPIReader")

// informerFor returns the cache's informer for gvr, creating and starting it
// on first use, once it has synced.
func (c *Client) informerFor(ctx context.Context, gvk schema.GroupVersionKind, gvr schema.GroupVersionResource) (informer.SharedIndexInformer, error) {
	inf, err := c.m.GetInformer(gvr, c.m.exampleFor(gvk, gvr))
	if err != nil {
		return nil, fmt.Errorf("controller: client: %w", err)
	}
	if inf.HasSynced() {
		return inf, nil
	}
	c.m.mu.Lock()
	cacheCtx := c.m.cacheCtx
	c.m.mu.Unlock()
	switch {
	case cacheCtx == nil:
		return nil, errCacheNotStarted
	case cacheCtx.Err() != nil:
		return nil, errors.New("controller: client: the Manager's cache has stopped")
	}
	syncCtx, cancel := context.WithTimeout(ctx, c.m.cacheSyncTimeout)
	defer cancel()
	if !informer.WaitForCacheSync(syncCtx, inf) {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("controller: client: waiting for the cache of %s to sync: %w", ctrlutil.ResourceName(gvr), ctx.Err())
		}
		return nil, fmt.Errorf("controller: client: timed out after %s waiting for the cache of %s to sync", c.m.cacheSyncTimeout, ctrlutil.ResourceName(gvr))
	}
	return inf, nil
}

// checkCacheNamespace refuses reads of a namespace a namespace-limited
// cache does not watch: they would find nothing, silently.
func (m *Manager) checkCacheNamespace(ns string) error {
	if m.namespace == "" || ns == "" || ns == m.namespace {
		return nil
	}
	return fmt.Errorf("controller: client: the Manager's cache watches namespace %q only, not %q: use GetAPIReader", m.namespace, ns)
}

// IgnoreNotFound returns nil for a NotFound API error and err otherwise:
// a Reconcile whose object is gone usually has nothing to do.
//
// client-go: controller-runtime pkg/client.IgnoreNotFound.
func IgnoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// cachedObject converts what an informer's cache holds to an Object.
func cachedObject(obj any) (controller.Object, error) {
	o, ok := obj.(controller.Object)
	if !ok {
		return nil, fmt.Errorf("controller: %T is not an API object with metadata", obj)
	}
	return o, nil
}
