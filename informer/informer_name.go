package informer

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// names is the process-wide registry of InformerNames: package-level
// state, which informerlab otherwise avoids, because a name is unique in a
// process or it is not unique at all, so the registry cannot live in any
// one value.
var names = struct {
	mu sync.Mutex // guards byName
	// Invariant: byName[n.name] == n for every registered n, and only
	// InformerNames not yet released are registered.
	byName map[string]*InformerName
}{byName: map[string]*InformerName{}}

// InformerName is a name for informers that is unique in the process: the
// name their metrics are recorded under. A program reserves it once, at
// start (a controller manager calls NewInformerName("kube-controller-manager")),
// and hands it to its informers, each of which takes one resource under it
// with WithResource. The registry refuses a second InformerName of the same
// name, and under one name a resource is reserved once: a second informer
// for the same resource gets an identity that is not reserved, and records
// no metrics, so no two informers ever record under the same name and
// resource. Release gives the name back.
//
// Reach for it when several components of one process build informers with
// metrics and must not collide; a single informer is named more simply with
// [WithName]. Pass its identity to an informer with [WithIdentifier], or to
// every informer of a factory with [WithInformerName].
//
// An InformerName is safe for concurrent use; its methods accept a nil
// *InformerName, which reserves nothing.
//
// client-go: tools/cache.InformerName (identity.go).
type InformerName struct {
	name string

	mu sync.Mutex // guards released and resources
	// Invariant: released implies resources is empty; every flag in
	// resources is true.
	released  bool
	resources map[schema.GroupVersionResource]*atomic.Bool
}

// NewInformerName reserves name in the process. It fails if name is empty
// or already reserved and not yet released. Release the InformerName when
// it is no longer used (at shutdown, and at the end of a test), so that the
// name can be reserved again.
//
// client-go: tools/cache.NewInformerName.
func NewInformerName(name string) (*InformerName, error) {
	if name == "" {
		return nil, errors.New("informer: informer name cannot be empty")
	}
	names.mu.Lock()
	defer names.mu.Unlock()
	if _, taken := names.byName[name]; taken {
		return nil, fmt.Errorf("informer: informer name %q is already registered", name)
	}
	n := &InformerName{name: name, resources: map[schema.GroupVersionResource]*atomic.Bool{}}
	names.byName[name] = n
	return n, nil
}

// Name returns the name ("" for a nil InformerName).
func (n *InformerName) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// WithResource returns the identity of an informer of gvr under this name.
// The first call for a gvr reserves it: the identity's Reserved is true
// until Release. A later call for the same gvr, a call after Release and a
// call on a nil InformerName return an identity that is not reserved. An
// informer given one with metrics logs that it records none (see
// [WithIdentifier]), as a duplicate means two informers of one resource
// where one was meant.
//
// client-go: tools/cache.InformerName.WithResource.
func (n *InformerName) WithResource(gvr schema.GroupVersionResource) InformerNameAndResource {
	if n == nil {
		return InformerNameAndResource{gvr: gvr}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	id := InformerNameAndResource{name: n.name, gvr: gvr}
	if n.released {
		return id
	}
	if _, dup := n.resources[gvr]; dup {
		return id
	}
	id.reserved = &atomic.Bool{}
	id.reserved.Store(true)
	n.resources[gvr] = id.reserved
	return id
}

// Release gives the name back: every identity WithResource returned stops
// being reserved, and NewInformerName may reserve the name again. Releasing
// twice, or releasing a nil InformerName, does nothing; releasing an
// InformerName whose name has since been reserved again leaves the new one
// alone.
//
// client-go: tools/cache.InformerName.Release.
func (n *InformerName) Release() {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.released = true
	for _, reserved := range n.resources {
		reserved.Store(false)
	}
	clear(n.resources)
	n.mu.Unlock()

	names.mu.Lock()
	defer names.mu.Unlock()
	if names.byName[n.name] == n {
		delete(names.byName, n.name)
	}
}

// InformerNameAndResource is an informer's identity: an [InformerName] and
// the resource the informer watches. The zero value names nothing and is
// not reserved. It is a small value, safe to copy and for concurrent use.
//
// client-go: tools/cache.InformerNameAndResource.
type InformerNameAndResource struct {
	name     string
	gvr      schema.GroupVersionResource
	reserved *atomic.Bool // nil: never reserved
}

// Name returns the InformerName's name ("" for the zero value).
func (id InformerNameAndResource) Name() string { return id.name }

// GroupVersionResource returns the resource.
func (id InformerNameAndResource) GroupVersionResource() schema.GroupVersionResource {
	return id.gvr
}

// Reserved reports whether this identity is the one informer of its name and
// resource, entitled to record metrics: true from WithResource's first call
// for the resource until the InformerName is released.
func (id InformerNameAndResource) Reserved() bool {
	return id.reserved != nil && id.reserved.Load()
}

// String is the informer name WithIdentifier gives: the name, then the
// resource unless it is empty ("kube-controller-manager apps/v1,
// Resource=deployments"); "" for the zero value.
func (id InformerNameAndResource) String() string {
	if id.gvr.Empty() {
		return id.name
	}
	if id.name == "" {
		return id.gvr.String()
	}
	return id.name + " " + id.gvr.String()
}
