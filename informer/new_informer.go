package informer

import (
	"errors"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/reflector"
)

// InformerOptions configures a standalone informer: a cache and one handler
// on a [Controller], without the sharing, the per-handler goroutines and
// the late joiners of a [SharedIndexInformer].
//
// client-go: tools/cache.InformerOptions.
type InformerOptions struct {
	// ListerWatcher lists and watches the objects. Required.
	ListerWatcher reflector.ListerWatcher
	// ObjectType is an example of the objects ListerWatcher returns (see
	// [Config.ObjectType]).
	ObjectType runtime.Object
	// Handler is told about every change after the cache holds it, on the
	// process loop's goroutine: a slow Handler holds up the loop, and a
	// panic in it ends Run. Required.
	Handler ResourceEventHandler
	// ResyncPeriod is how often every cached object is handed to Handler
	// again as OnUpdate(obj, obj); 0 means never.
	ResyncPeriod time.Duration
	// Indexers are the cache's indexes.
	Indexers indexer.Indexers
	// Transform, if set, rewrites every object before it is queued (see
	// [deltafifo.TransformFunc]).
	Transform deltafifo.TransformFunc
	// Queue chooses the queue, as [WithQueue] does; the default is
	// [QueueDeltaFIFO].
	Queue QueueKind
	// Reflector holds the Reflector's options (see [Config.Reflector]).
	Reflector reflector.Options
	// Logger receives the informer's log lines. Default: slog.Default().
	Logger *slog.Logger
}

// NewInformerWithOptions returns a cache and the Controller that fills it:
// each popped change is written to the cache (steps 4-5), then Handler is
// called (step 6) — directly, on the process loop, with nothing in between.
// This is the low-level informer to use; [NewInformer], [NewIndexerInformer],
// [NewTransformingInformer] and [NewTransformingIndexerInformer] are
// client-go's older spellings of it. The cache is keyed by
// [deltafifo.DeletionHandlingMetaNamespaceKeyFunc] and is the Queue's known
// objects. Read it, never write it: only the Controller writes.
//
// A missing ListerWatcher or Handler, or an unknown Queue, is reported by
// Run, which then returns at once.
//
// Most programs want a [SharedIndexInformer] instead: several handlers on
// one watch and one cache, each on its own goroutine, with handlers added
// while it runs. This one is the diagram's Informer box alone, to read and
// to build on.
//
// client-go: tools/cache.NewInformerWithOptions.
func NewInformerWithOptions(opts InformerOptions) (indexer.Store, Controller) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cache := indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, opts.Indexers)
	var initErr error
	switch {
	case opts.Handler == nil:
		initErr = errors.New("informer: InformerOptions needs a Handler")
	case !validQueue(opts.Queue):
		initErr = errorf("unknown queue kind %v", opts.Queue)
	}
	if initErr != nil {
		c := New(&Config{Logger: logger}).(*lowLevelController)
		c.initErr = initErr
		return cache, c
	}

	q, batch := newQueue(opts.Queue, deltafifo.Options{
		KeyFunction:  deltafifo.DeletionHandlingMetaNamespaceKeyFunc,
		KnownObjects: cache,
		Transformer:  opts.Transform,
		Logger:       logger,
	})
	trace := tracer{logger}
	cfg := &Config{
		Queue:            q,
		ListerWatcher:    opts.ListerWatcher,
		ObjectType:       opts.ObjectType,
		FullResyncPeriod: opts.ResyncPeriod,
		Process: func(deltas deltafifo.Deltas, isInInitialList bool) error {
			return processDeltas(opts.Handler, cache, deltas, isInInitialList, trace)
		},
		Reflector: opts.Reflector,
		Logger:    logger,
	}
	if batch != nil {
		cfg.ProcessBatch = func(deltas []deltafifo.Delta, isInInitialList bool) error {
			return processBatch(opts.Handler, cache, deltas, isInInitialList, trace)
		}
	}
	return cache, New(cfg)
}

// NewInformer is [NewInformerWithOptions] with a ListerWatcher, an object
// type, a resync period and a handler. It is here for code written against
// client-go; new code calls NewInformerWithOptions.
//
// client-go: tools/cache.NewInformer.
func NewInformer(lw reflector.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (indexer.Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h})
}

// NewIndexerInformer is [NewInformer] with indexes. It is here for code
// written against client-go; new code calls NewInformerWithOptions.
//
// client-go: tools/cache.NewIndexerInformer.
func NewIndexerInformer(lw reflector.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers indexer.Indexers) (indexer.Indexer, Controller) {
	s, c := NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: indexers})
	return s.(indexer.Indexer), c
}

// NewTransformingInformer is [NewInformer] with a transform. It is here for
// code written against client-go; new code calls NewInformerWithOptions.
//
// client-go: tools/cache.NewTransformingInformer.
func NewTransformingInformer(lw reflector.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transform deltafifo.TransformFunc) (indexer.Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Transform: transform})
}

// NewTransformingIndexerInformer is [NewInformer] with indexes and a
// transform. It is here for code written against client-go; new code calls
// NewInformerWithOptions.
//
// client-go: tools/cache.NewTransformingIndexerInformer.
func NewTransformingIndexerInformer(lw reflector.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers indexer.Indexers, transform deltafifo.TransformFunc) (indexer.Indexer, Controller) {
	s, c := NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: indexers, Transform: transform})
	return s.(indexer.Indexer), c
}
