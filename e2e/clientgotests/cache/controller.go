package cache

import (
	"context"
	"time"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

type (
	ProcessFunc      func(obj interface{}, isInInitialList bool) error
	ShouldResyncFunc func() bool
)

// Config is client-go's: the queue is this package's DeltaFIFO or RealFIFO,
// the process function gets the popped Deltas as an interface{}.
type Config struct {
	Queue
	ListerWatcher

	Process                      ProcessFunc
	ProcessBatch                 ProcessBatchFunc
	ObjectType                   runtime.Object
	ObjectDescription            string
	FullResyncPeriod             time.Duration
	MinWatchTimeout              time.Duration
	ShouldResync                 ShouldResyncFunc
	WatchErrorHandler            WatchErrorHandler
	WatchErrorHandlerWithContext WatchErrorHandlerWithContext
	WatchListPageSize            int64
}

// Controller is client-go's: informerlab's with stop channels.
type Controller interface {
	RunWithContext(ctx context.Context)
	Run(stopCh <-chan struct{})
	HasSynced() bool
	HasSyncedChecker() informer.DoneChecker
	LastSyncResourceVersion() string
}

func New(c *Config) Controller {
	cfg := &informer.Config{
		Queue:            shimLabQueue(c.Queue),
		ListerWatcher:    shimListerWatcher(c.ListerWatcher),
		ObjectType:       c.ObjectType,
		FullResyncPeriod: c.FullResyncPeriod,
		ProcessBatch:     c.ProcessBatch,
		Reflector: reflector.Options{
			MinWatchTimeout: c.MinWatchTimeout,
			PageSize:        c.WatchListPageSize,
		},
	}
	if p := c.Process; p != nil {
		cfg.Process = func(d deltafifo.Deltas, isInInitialList bool) error { return p(d, isInInitialList) }
	}
	if s := c.ShouldResync; s != nil {
		cfg.ShouldResync = s
	}
	switch {
	case c.WatchErrorHandler != nil:
		h := c.WatchErrorHandler
		cfg.WatchErrorHandler = func(_ context.Context, r *reflector.Reflector, err error) { h(shimReflector(r), err) }
	case c.WatchErrorHandlerWithContext != nil:
		h := c.WatchErrorHandlerWithContext
		cfg.WatchErrorHandler = func(ctx context.Context, r *reflector.Reflector, err error) { h(ctx, shimReflector(r), err) }
	}
	return shimController{informer.New(cfg)}
}

// shimLabQueue unwraps this package's queues; any other is nil, which
// informerlab's New reports.
func shimLabQueue(q Queue) deltafifo.Queue {
	switch f := q.(type) {
	case *DeltaFIFO:
		return f.DeltaFIFO
	case *RealFIFO:
		return f.RealFIFO
	}
	return nil
}

type shimController struct{ informer.Controller }

func (c shimController) Run(stopCh <-chan struct{}) { c.Controller.Run(wait.ContextForChannel(stopCh)) }

func (c shimController) RunWithContext(ctx context.Context) { c.Controller.Run(ctx) }

// InformerOptions is client-go's, as far as informerlab has it; Logger is
// accepted and ignored.
type InformerOptions struct {
	Logger          *klog.Logger
	ListerWatcher   ListerWatcher
	ObjectType      runtime.Object
	Handler         ResourceEventHandler
	ResyncPeriod    time.Duration
	MinWatchTimeout time.Duration
	Indexers        Indexers
	Transform       TransformFunc
}

func NewInformerWithOptions(options InformerOptions) (Store, Controller) {
	store, c := informer.NewInformerWithOptions(informer.InformerOptions{
		ListerWatcher: shimListerWatcher(options.ListerWatcher),
		ObjectType:    options.ObjectType,
		Handler:       options.Handler,
		ResyncPeriod:  options.ResyncPeriod,
		Indexers:      options.Indexers,
		Transform:     options.Transform,
		Queue:         shimQueueKind(),
		Reflector:     reflector.Options{MinWatchTimeout: options.MinWatchTimeout},
	})
	return store, shimController{c}
}

func NewInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h})
}

func NewIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers) (Indexer, Controller) {
	s, c := NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: indexers})
	return s.(Indexer), c
}

func NewTransformingInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transformer TransformFunc) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Transform: transformer})
}

func NewTransformingIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers, transformer TransformFunc) (Indexer, Controller) {
	s, c := NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: indexers, Transform: transformer})
	return s.(Indexer), c
}
