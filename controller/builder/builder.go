package builder

import (
	"errors"
	"fmt"
	"strings"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"github.com/informerlab/informerlab/controller/manager"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Builder wires a controller into a [manager.Manager] in a few calls:
//
//	err := builder.New(mgr).
//		For(foosGVR, &Foo{}, predicate.GenerationChangedPredicate{}).  // reconcile Foos...
//		Owns(deploymentsGVR, &Deployment{}).                             // ...and the Foo owning a changed Deployment
//		Complete(reconciler)
//
// For, Owns and Watches each get the Manager's shared informer for their
// resource and add a [controller.Kind] source; WithEventFilter adds predicates to all
// three. Complete (or Build) creates the [controller.Controller] and adds it to the
// Manager. Mistakes are collected and reported by Complete.
//
// client-go: controller-runtime pkg/builder.Builder (ControllerManagedBy).
type Builder struct {
	mgr        *manager.Manager
	name       string
	forInput   *watchInput
	owns       []watchInput
	watches    []watchInput
	rawSources []controller.Source
	filters    []controller.Predicate
	options    controller.Options
	errs       []error
}

// watchInput is one For, Owns or Watches call.
type watchInput struct {
	gvr        schema.GroupVersionResource
	example    runtime.Object
	handler    controller.EventHandler // nil for For and Owns: Build chooses it
	predicates []controller.Predicate
}

// New starts building a controller managed by mgr.
func New(mgr *manager.Manager) *Builder {
	return &Builder{mgr: mgr}
}

// For names the controller's primary resource: its events enqueue the
// object's own Request ([controller.EnqueueRequestForObject]), and the controller is
// named after its kind unless Named says otherwise. example is an object of
// the type the resource's informer returns; its kind must be known (set
// apiVersion and kind, or give the Manager a Scheme that knows the type).
// For may be called once.
func (b *Builder) For(gvr schema.GroupVersionResource, example runtime.Object, predicates ...controller.Predicate) *Builder {
	if b.forInput != nil {
		b.errs = append(b.errs, errors.New("controller: builder: For can only be called once"))
		return b
	}
	b.forInput = &watchInput{gvr: gvr, example: example, predicates: predicates}
	return b
}

// Owns watches a resource the controller creates and owns: an event for an
// owned object enqueues the Request of its controlling owner, of For's
// kind ([controller.EnqueueRequestForOwner] with [controller.OnlyControllerOwner]). It needs For.
func (b *Builder) Owns(gvr schema.GroupVersionResource, example runtime.Object, predicates ...controller.Predicate) *Builder {
	b.owns = append(b.owns, watchInput{gvr: gvr, example: example, predicates: predicates})
	return b
}

// Watches watches any resource, with the handler deciding which Requests an
// event enqueues.
func (b *Builder) Watches(gvr schema.GroupVersionResource, example runtime.Object, handler controller.EventHandler, predicates ...controller.Predicate) *Builder {
	if handler == nil {
		b.errs = append(b.errs, fmt.Errorf("controller: builder: Watches(%s): handler is nil", ctrlutil.ResourceName(gvr)))
		return b
	}
	b.watches = append(b.watches, watchInput{gvr: gvr, example: example, handler: handler, predicates: predicates})
	return b
}

// WatchesRawSource adds a source as it is, such as a [controller.Channel]. Event
// filters do not apply to it.
func (b *Builder) WatchesRawSource(src controller.Source) *Builder {
	if src == nil {
		b.errs = append(b.errs, errors.New("controller: builder: WatchesRawSource: source is nil"))
		return b
	}
	b.rawSources = append(b.rawSources, src)
	return b
}

// WithEventFilter adds a predicate every For, Owns and Watches event must
// pass, before their own predicates.
func (b *Builder) WithEventFilter(p controller.Predicate) *Builder {
	b.filters = append(b.filters, p)
	return b
}

// WithOptions sets the controller's options.
func (b *Builder) WithOptions(opts controller.Options) *Builder {
	b.options = opts
	return b
}

// Named sets the controller's name, which must be unique within the
// Manager. The default is For's kind in lower case.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// Complete builds the controller and adds it to the Manager.
func (b *Builder) Complete(r controller.Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build builds the controller, adds it to the Manager and returns it, or
// returns every mistake found, joined.
func (b *Builder) Build(r controller.Reconciler) (*controller.Controller, error) {
	if b.mgr == nil {
		return nil, errors.New("controller: builder: manager is nil")
	}
	if r == nil {
		b.errs = append(b.errs, errors.New("controller: builder: reconciler is nil"))
	}
	if b.forInput == nil && len(b.owns) > 0 {
		b.errs = append(b.errs, errors.New("controller: builder: Owns needs For: owner references point to For's kind"))
	}
	if b.forInput == nil && len(b.watches) == 0 && len(b.rawSources) == 0 {
		b.errs = append(b.errs, errors.New("controller: builder: there are no watches configured, so the controller would never be triggered: use For, Owns, Watches or WatchesRawSource"))
	}
	var forKind schema.GroupVersionKind
	if b.forInput != nil {
		var err error
		if forKind, err = b.kindOf(*b.forInput); err != nil {
			b.errs = append(b.errs, err)
		}
	}
	name := b.name
	if name == "" && forKind.Kind != "" {
		name = strings.ToLower(forKind.Kind)
	}
	if name == "" && b.forInput == nil {
		b.errs = append(b.errs, errors.New("controller: builder: the controller needs a name: call Named, or For"))
	}
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}

	c, err := controller.New(name, r, b.options)
	if err != nil {
		return nil, err
	}
	if b.forInput != nil {
		in := *b.forInput
		in.handler = controller.EnqueueRequestForObject{}
		if err := b.watch(c, in); err != nil {
			return nil, err
		}
	}
	for _, in := range b.owns {
		in.handler = controller.EnqueueRequestForOwner(forKind.GroupKind(), controller.OnlyControllerOwner())
		if err := b.watch(c, in); err != nil {
			return nil, err
		}
	}
	for _, in := range b.watches {
		if err := b.watch(c, in); err != nil {
			return nil, err
		}
	}
	for _, src := range b.rawSources {
		if err := c.Watch(src); err != nil {
			return nil, err
		}
	}
	if err := b.mgr.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// watch adds a Kind source for in, on the Manager's shared informer.
func (b *Builder) watch(c *controller.Controller, in watchInput) error {
	inf, err := b.mgr.GetInformer(in.gvr, in.example)
	if err != nil {
		return err
	}
	src := controller.Kind(inf, in.handler, append(b.filters[:len(b.filters):len(b.filters)], in.predicates...)...)
	src.Resource = ctrlutil.ResourceName(in.gvr)
	return c.Watch(src)
}

// kindOf finds the kind of a watch's example object: from its apiVersion and
// kind if set, else from the Manager's Scheme.
func (b *Builder) kindOf(in watchInput) (schema.GroupVersionKind, error) {
	if in.example == nil {
		return schema.GroupVersionKind{}, fmt.Errorf("controller: builder: For(%s): example object is nil", ctrlutil.ResourceName(in.gvr))
	}
	gvk := in.example.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" && b.mgr.Scheme() != nil {
		if kinds, _, err := b.mgr.Scheme().ObjectKinds(in.example); err == nil && len(kinds) == 1 {
			gvk = kinds[0]
		}
	}
	if gvk.Kind == "" {
		return gvk, fmt.Errorf("controller: builder: For(%s): cannot tell the kind of %T: set its apiVersion and kind, or give the Manager a Scheme that knows it", ctrlutil.ResourceName(in.gvr), in.example)
	}
	if gvk.Group != in.gvr.Group {
		return gvk, fmt.Errorf("controller: builder: For(%s): example object is a %s of group %q, not of %q", ctrlutil.ResourceName(in.gvr), gvk.Kind, gvk.Group, in.gvr.Group)
	}
	return gvk, nil
}
