package informer

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/reflector"
)

// ListerWatcherFunc returns the ListerWatcher of one resource in one
// namespace ("" for all namespaces, or a cluster-scoped resource). fakeapi's
// and client's resource handles fit in one line:
//
//	func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
//		return server.Resource(gvr).Namespace(ns)
//	}
type ListerWatcherFunc func(gvr schema.GroupVersionResource, namespace string) reflector.ListerWatcher

// SharedInformerFactory hands out one shared informer per resource (GVR), so
// every part of a program that watches a resource shares one watch, one
// cache and one process loop. Informers are created on first request, started
// by Start, and stopped when the context given to Start is done; Shutdown
// waits for them.
//
// It is safe for concurrent use.
//
// client-go: informers.SharedInformerFactory and
// dynamic/dynamicinformer.DynamicSharedInformerFactory.
type SharedInformerFactory struct {
	newLW         ListerWatcherFunc
	defaultResync time.Duration
	cfg           factoryConfig

	wg sync.WaitGroup // counts running informers

	mu sync.Mutex // guards the fields below
	// Invariants: every key of started is a key of informers; shuttingDown
	// is never cleared.
	informers    map[schema.GroupVersionResource]*genericInformer
	started      map[schema.GroupVersionResource]bool
	shuttingDown bool
}

type factoryConfig struct {
	namespace      string
	tweak          func(*metav1.ListOptions)
	customResync   map[schema.GroupVersionResource]time.Duration
	transform      deltafifo.TransformFunc
	informerOption []Option
	informerName   *InformerName
}

// FactoryOption configures a SharedInformerFactory.
type FactoryOption func(*factoryConfig)

// WithNamespace limits every informer of the factory to one namespace.
func WithNamespace(namespace string) FactoryOption {
	return func(c *factoryConfig) { c.namespace = namespace }
}

// WithTweakListOptions edits the options of every list and watch (to add a
// label or field selector, say).
func WithTweakListOptions(tweak func(*metav1.ListOptions)) FactoryOption {
	return func(c *factoryConfig) { c.tweak = tweak }
}

// WithCustomResyncConfig gives some resources a default resync period other
// than the factory's.
func WithCustomResyncConfig(resync map[schema.GroupVersionResource]time.Duration) FactoryOption {
	return func(c *factoryConfig) { c.customResync = resync }
}

// WithTransform sets the transform of every informer (see SetTransform).
func WithTransform(transform deltafifo.TransformFunc) FactoryOption {
	return func(c *factoryConfig) { c.transform = transform }
}

// WithInformerOptions passes options (queue kind, logger, reflector options)
// to every informer the factory creates.
func WithInformerOptions(opts ...Option) FactoryOption {
	return func(c *factoryConfig) { c.informerOption = append(c.informerOption, opts...) }
}

// WithInformerName names every informer of the factory under n: each gets
// [WithIdentifier] of n.WithResource(its resource), after the options of
// WithInformerOptions. The factory makes one informer per resource, so each
// identity is reserved unless something else took the same resource under n.
// The factory does not release n; its owner does.
//
// client-go: informers.WithInformerName.
func WithInformerName(n *InformerName) FactoryOption {
	return func(c *factoryConfig) { c.informerName = n }
}

// NewSharedInformerFactory returns a factory whose informers get their
// ListerWatchers from newLW and resync every defaultResync (0: never).
//
// client-go: informers.NewSharedInformerFactoryWithOptions.
func NewSharedInformerFactory(newLW ListerWatcherFunc, defaultResync time.Duration, opts ...FactoryOption) *SharedInformerFactory {
	f := &SharedInformerFactory{
		newLW:         newLW,
		defaultResync: defaultResync,
		informers:     map[schema.GroupVersionResource]*genericInformer{},
		started:       map[schema.GroupVersionResource]bool{},
	}
	for _, opt := range opts {
		opt(&f.cfg)
	}
	return f
}

// GenericInformer is the factory's informer for one resource, with a lister
// over its cache. For a typed lister, use
// NewLister[T](gi.Informer().GetIndexer(), gvr.GroupResource()).
//
// client-go: informers.GenericInformer.
type GenericInformer interface {
	Informer() SharedIndexInformer
	Lister() *indexer.Lister
}

type genericInformer struct {
	informer SharedIndexInformer
	lister   *indexer.Lister
	example  reflect.Type
}

func (g *genericInformer) Informer() SharedIndexInformer { return g.informer }
func (g *genericInformer) Lister() *indexer.Lister       { return g.lister }

// ForResource returns the informer of gvr, creating it on first use.
// exampleObject is the type the server returns for it (see
// NewSharedIndexInformer); asking again for the same resource with an object
// of another Go type is an error. The informer's cache has the namespace
// index ([indexer.NamespaceIndex]). An informer created after Start runs
// only once Start is called again.
//
// client-go: dynamicinformer.DynamicSharedInformerFactory.ForResource.
func (f *SharedInformerFactory) ForResource(gvr schema.GroupVersionResource, exampleObject runtime.Object) (GenericInformer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	exampleType := reflect.TypeOf(exampleObject)
	if gi, ok := f.informers[gvr]; ok {
		if gi.example != exampleType {
			return nil, fmt.Errorf("informer: the factory's informer for %s caches %v, not %v", gvr, gi.example, exampleType)
		}
		return gi, nil
	}
	if f.newLW == nil {
		return nil, fmt.Errorf("informer: the factory has no ListerWatcherFunc")
	}
	lw := f.newLW(gvr, f.cfg.namespace)
	if lw == nil {
		return nil, fmt.Errorf("informer: no ListerWatcher for %s", gvr)
	}
	if f.cfg.tweak != nil {
		lw = tweakedListerWatcher(lw, f.cfg.tweak)
	}
	resync := f.defaultResync
	if r, ok := f.cfg.customResync[gvr]; ok {
		resync = r
	}
	opts := f.cfg.informerOption
	if n := f.cfg.informerName; n != nil {
		opts = append(slices.Clip(opts), WithIdentifier(n.WithResource(gvr)))
	}
	inf := NewSharedIndexInformer(lw, exampleObject, resync,
		indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc}, opts...)
	if f.cfg.transform != nil {
		if err := inf.SetTransform(f.cfg.transform); err != nil {
			return nil, err
		}
	}
	gi := &genericInformer{
		informer: inf,
		lister:   indexer.NewLister(inf.GetIndexer(), gvr.GroupResource()),
		example:  exampleType,
	}
	f.informers[gvr] = gi
	return gi, nil
}

func tweakedListerWatcher(lw reflector.ListerWatcher, tweak func(*metav1.ListOptions)) reflector.ListerWatcher {
	return reflector.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			tweak(&opts)
			return lw.List(ctx, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			tweak(&opts)
			return lw.Watch(ctx, opts)
		},
	}
}

// Start runs every informer not yet started, each on its own goroutine, until
// ctx is done. It does not block. Call it again after asking for more
// informers; after Shutdown it does nothing.
func (f *SharedInformerFactory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	for gvr, gi := range f.informers {
		if f.started[gvr] {
			continue
		}
		f.started[gvr] = true
		f.wg.Go(func() { gi.informer.Run(ctx) })
	}
}

// WaitForCacheSync waits until every started informer has synced, or ctx is
// done, and reports which have synced. Informers not started are left out.
func (f *SharedInformerFactory) WaitForCacheSync(ctx context.Context) map[schema.GroupVersionResource]bool {
	f.mu.Lock()
	started := map[schema.GroupVersionResource]SharedIndexInformer{}
	for gvr := range f.started {
		started[gvr] = f.informers[gvr].informer
	}
	f.mu.Unlock()

	res := map[schema.GroupVersionResource]bool{}
	for gvr, inf := range started {
		res[gvr] = WaitForCacheSync(ctx, inf)
	}
	return res
}

// Shutdown marks the factory as shutting down (Start does nothing from now
// on) and blocks until every informer it started has returned from Run, with
// all of their goroutines. Cancel the context given to Start first.
// Shutdown is idempotent and safe to call concurrently.
func (f *SharedInformerFactory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	f.mu.Unlock()
	f.wg.Wait()
}
