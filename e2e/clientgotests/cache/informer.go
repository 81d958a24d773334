package cache

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

type (
	ResourceEventHandler              = informer.ResourceEventHandler
	ResourceEventHandlerFuncs         = informer.ResourceEventHandlerFuncs
	ResourceEventHandlerDetailedFuncs = informer.ResourceEventHandlerDetailedFuncs
	FilteringResourceEventHandler     = informer.FilteringResourceEventHandler
	ResourceEventHandlerRegistration  = informer.ResourceEventHandlerRegistration
	InformerSynced                    = informer.InformerSynced
)

// SharedInformer is client-go's, as far as informerlab's informer has it.
type SharedInformer interface {
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)
	AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error)
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error
	GetStore() Store
	Run(stopCh <-chan struct{})
	RunWithContext(ctx context.Context)
	HasSynced() bool
	HasSyncedChecker() informer.DoneChecker
	LastSyncResourceVersion() string
	SetWatchErrorHandler(handler WatchErrorHandler) error
	SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error
	SetTransform(handler TransformFunc) error
	IsStopped() bool
}

type SharedIndexInformer interface {
	SharedInformer
	AddIndexers(indexers Indexers) error
	GetIndexer() Indexer
}

// SharedIndexInformerOptions is client-go's, as far as informerlab has it.
type SharedIndexInformerOptions struct {
	ResyncPeriod      time.Duration
	Indexers          Indexers
	ObjectDescription string
}

func NewSharedInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, Indexers{})
}

func NewSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers Indexers) SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{ResyncPeriod: defaultEventHandlerResyncPeriod, Indexers: indexers})
}

func NewSharedIndexInformerWithOptions(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions) SharedIndexInformer {
	opts := sharedIndexInformerOptions()
	if options.ObjectDescription != "" {
		opts = append(opts, informer.WithName(options.ObjectDescription))
	}
	return &sharedIndexInformer{informer.NewSharedIndexInformer(shimListerWatcher(lw), exampleObject, options.ResyncPeriod, options.Indexers, opts...)}
}

// sharedIndexInformerOptions chooses the informers' queue from the environment.
func sharedIndexInformerOptions() []informer.Option {
	return []informer.Option{informer.WithQueue(shimQueueKind())}
}

// shimQueueKind reads the informers' queue from the environment.
func shimQueueKind() informer.QueueKind {
	switch q := os.Getenv("INFORMERLAB_CLIENTGO_QUEUE"); q {
	case "", "deltafifo":
		return informer.QueueDeltaFIFO
	case "realfifo":
		return informer.QueueRealFIFO
	case "atomic":
		return informer.QueueAtomicFIFO
	default:
		panic(fmt.Sprintf("cache shim: INFORMERLAB_CLIENTGO_QUEUE=%q: want deltafifo, realfifo or atomic", q))
	}
}

// sharedIndexInformer is informerlab's informer with client-go's stop channels and
// watch error handlers.
type sharedIndexInformer struct {
	informer.SharedIndexInformer
}

func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.SharedIndexInformer.Run(wait.ContextForChannel(stopCh))
}

// HandlerOptions is client-go's: a klog logger.
type HandlerOptions struct {
	Logger       *klog.Logger
	ResyncPeriod *time.Duration
}

func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error) {
	return s.SharedIndexInformer.AddEventHandlerWithOptions(handler, informer.HandlerOptions{Logger: shimSlog(options.Logger), ResyncPeriod: options.ResyncPeriod})
}

func (s *sharedIndexInformer) RunWithContext(ctx context.Context) { s.SharedIndexInformer.Run(ctx) }

func (s *sharedIndexInformer) SetWatchErrorHandler(handler WatchErrorHandler) error {
	return s.SharedIndexInformer.SetWatchErrorHandler(func(_ context.Context, r *reflector.Reflector, err error) {
		handler(shimReflector(r), err)
	})
}

func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error {
	return s.SharedIndexInformer.SetWatchErrorHandler(func(ctx context.Context, r *reflector.Reflector, err error) {
		handler(ctx, shimReflector(r), err)
	})
}

func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	checkers := make([]informer.DoneChecker, len(cacheSyncs))
	for i, c := range cacheSyncs {
		checkers[i] = c
	}
	return informer.WaitForCacheSync(wait.ContextForChannel(stopCh), checkers...)
}

// DoneChecker is client-go's: a name and a channel. informerlab's checkers
// have both (and HasSynced), so they are client-go's too; a checker of
// client-go's own kind gets its HasSynced from its channel.
type DoneChecker interface {
	Name() string
	Done() <-chan struct{}
}

type shimChecker struct{ DoneChecker }

func (c shimChecker) HasSynced() bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	lab := make([]informer.DoneChecker, len(checkers))
	for i, c := range checkers {
		if l, ok := c.(informer.DoneChecker); ok {
			lab[i] = l
		} else if c != nil {
			lab[i] = shimChecker{c}
		}
	}
	return informer.WaitFor(ctx, what, lab...)
}

func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	return WaitForCacheSync(stopCh, cacheSyncs...)
}

func ShutDownEventHandler(inf SharedInformer, handle ResourceEventHandlerRegistration) error {
	s, ok := inf.(*sharedIndexInformer)
	if !ok {
		return fmt.Errorf("cache shim: ShutDownEventHandler needs an informer of this package, got %T", inf)
	}
	return informer.ShutDownEventHandler(s.SharedIndexInformer, handle)
}
