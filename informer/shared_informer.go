package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/internal/shardselector"
	"github.com/informerlab/informerlab/reflector"
)

// SharedIndexInformer keeps a local cache of one resource up to date and
// tells any number of handlers about every change it applies (diagram steps
// 3-6). Many controllers can share one: they share its one watch, its one
// cache and its one process loop, and each gets its own handler goroutine.
//
// What it promises:
//
//   - The cache is eventually consistent with the server: for each object it
//     holds a subsequence of the object's states, in order; there is no
//     ordering across objects. An object is identified by namespace/name,
//     not UID, so a delete and re-create missed while disconnected can show
//     up as one OnUpdate between two different objects.
//   - A handler is called after the cache holds the change. Calls to one
//     handler are sequential, and per object in order; different handlers
//     are not coordinated.
//   - OnDelete gets the last state the informer knew, or a
//     [deltafifo.DeletedFinalStateUnknown] tombstone.
//   - Objects handed to handlers and returned by the cache are shared: never
//     mutate them.
//
// All methods are safe for concurrent use.
//
// client-go: tools/cache.SharedIndexInformer.
type SharedIndexInformer interface {
	// AddEventHandler registers handler with the informer's default resync
	// period. On a running informer the handler first gets the whole cache as
	// OnAdd(obj, true), exactly once, then live events. It fails once the
	// informer has stopped.
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithResyncPeriod registers handler with its own resync
	// period: 0 means no resync; a positive period is raised to at least 1s
	// and, on a running informer, to at least the informer's resync check
	// period; before Run, a period shorter than the check period lowers it.
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithOptions registers handler with its own settings:
	// a resync period (as AddEventHandlerWithResyncPeriod) and a logger for
	// its panics. The zero HandlerOptions is AddEventHandler.
	AddEventHandlerWithOptions(handler ResourceEventHandler, opts HandlerOptions) (ResourceEventHandlerRegistration, error)
	// RemoveEventHandler unregisters a handler: it gets nothing more, except
	// that a call in progress completes; what waits in its buffer is dropped.
	// Removing a handle twice, or a handle of another informer, does nothing.
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error

	// GetStore and GetIndexer return the live cache. Read it, never write it:
	// only the informer writes.
	GetStore() indexer.Store
	GetIndexer() indexer.Indexer
	// AddIndexers adds indexes, before or after Run; it fails once stopped.
	AddIndexers(indexers indexer.Indexers) error

	// SetTransform sets a function that rewrites every object arriving from
	// the server before it reaches the cache and the handlers (see
	// [deltafifo.TransformFunc]). Only before Run.
	SetTransform(transform deltafifo.TransformFunc) error
	// SetWatchErrorHandler sets the function told about every list or watch
	// failure. Only before Run.
	SetWatchErrorHandler(handler reflector.WatchErrorHandler) error

	// Run lists, watches, caches and notifies until ctx is done, then stops
	// every goroutine it started and returns. An informer runs once.
	Run(ctx context.Context)

	// HasSynced reports whether the initial list has been applied to the
	// cache and handed to the handlers (not necessarily handled: see
	// ResourceEventHandlerRegistration.HasSynced). Done is closed when it
	// becomes true. Name is "SharedIndexInformer" and the informer's name.
	DoneChecker
	// HasSyncedChecker returns the informer itself, which is a DoneChecker;
	// it is here for code written against client-go, whose informer is not
	// one.
	HasSyncedChecker() DoneChecker
	// HasStarted reports whether Run has been called.
	HasStarted() bool
	// IsStopped reports whether Run has returned.
	IsStopped() bool
	// LastSyncResourceVersion is the resourceVersion the Reflector last saw
	// ("" before Run). It runs ahead of the cache: changes up to it may still
	// be queued.
	LastSyncResourceVersion() string

	// SetShardSelector makes the informer cache one shard of the resource:
	// the objects whose FNV-1a-64 hash of uid (or namespace) is in the
	// expression's ranges (see [reflector.Reflector.SetShardSelector]). On
	// a running informer the watch ends and the Reflector relists with the
	// new selector: objects that left the shard reach the handlers as
	// OnDelete (a DeletedFinalStateUnknown), objects that joined as OnAdd.
	// "" caches every object. An expression that does not parse is refused
	// and changes nothing.
	SetShardSelector(expr string) error

	// SetLabelSelector makes the informer cache only the objects whose
	// labels match sel, for example "informerlab.dev/bucket in (3,4)" (see
	// [reflector.Reflector.SetLabelSelector]); it combines with the shard
	// selector. On a running informer the watch ends and the Reflector
	// relists with the new selector: objects that left reach the handlers as
	// OnDelete, objects that joined as OnAdd. An object relabelled out of
	// the selector while watched reaches them as OnDelete too. "" caches
	// every object. A selector that does not parse is refused and changes
	// nothing.
	SetLabelSelector(sel string) error
}

// sharedIndexInformer is the SharedIndexInformer.
//
// Lock order: mu, then blockDeltas, then the processor's mu. The process
// loop holds the queue's lock, then blockDeltas.
type sharedIndexInformer struct {
	lw            reflector.ListerWatcher
	exampleObject runtime.Object
	indexer       indexer.Indexer
	processor     *sharedProcessor
	detector      *cacheMutationDetector // nil unless the mutation detector is on
	opts          options
	name          string // see WithName
	logger        *slog.Logger
	initErr       error // bad construction arguments, reported by Run and AddEventHandler

	// defaultEventHandlerResyncPeriod is the period AddEventHandler asks for.
	defaultEventHandlerResyncPeriod time.Duration

	synced     chan struct{} // closed once the queue has synced
	syncedOnce sync.Once

	// blockDeltas is held while one popped Deltas is applied and
	// distributed, and while a handler joins a running informer: the newcomer
	// gets the cache as it is between two Deltas, then every later change.
	blockDeltas sync.Mutex

	mu sync.Mutex // guards the fields below
	// Invariants: stopped implies started; once started, transform and
	// watchErrorHandler no longer change and resyncCheckPeriod no longer drops.
	started           bool
	stopped           bool
	resyncCheckPeriod time.Duration // how often the Reflector asks shouldResync
	transform         deltafifo.TransformFunc
	watchErrorHandler reflector.WatchErrorHandler
	reflector         *reflector.Reflector // set by Run
}

var (
	errAlreadyStarted = errors.New("informer: the informer has already started")
	// errIndexerStopped is worded as client-go's, which programs match on.
	errIndexerStopped = errors.New("informer: indexer was not added because it has stopped already")
	errNilHandler     = errors.New("informer: nil event handler")
)

// NewSharedIndexInformer returns an informer for the objects lw serves.
// exampleObject is an object of the type lw returns (a typed object, or an
// *unstructured.Unstructured with apiVersion and kind set); watch events with
// anything else are skipped, and nil accepts everything. defaultResync is
// both the resync period of handlers added with AddEventHandler and the
// informer's resync check period; 0 (or less) means no resync. The cache is
// keyed by [deltafifo.DeletionHandlingMetaNamespaceKeyFunc] and has the given
// indexes.
//
// It starts no goroutine; Run does. A nil lw is reported by Run (which then
// returns at once) and by AddEventHandler.
//
// client-go: tools/cache.NewSharedIndexInformer.
func NewSharedIndexInformer(lw reflector.ListerWatcher, exampleObject runtime.Object,
	defaultResync time.Duration, indexers indexer.Indexers, opts ...Option) SharedIndexInformer {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if id := o.identifier; id != nil && !id.Reserved() && (o.metrics != nil || o.reflector.MetricsProvider != nil) {
		o.logger.Error("informer: the informer's identity is not reserved (a second informer of its name and resource?); its metrics will not be recorded",
			"informerName", id.Name(), "resource", id.GroupVersionResource().String())
		o.metrics, o.reflector.MetricsProvider = nil, nil
	}
	defaultResync = max(defaultResync, 0)
	s := &sharedIndexInformer{
		lw:                              lw,
		exampleObject:                   exampleObject,
		indexer:                         indexer.NewIndexer(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, indexers),
		processor:                       newSharedProcessor(o.logger),
		opts:                            o,
		name:                            informerName(o, exampleObject),
		logger:                          o.logger,
		defaultEventHandlerResyncPeriod: defaultResync,
		resyncCheckPeriod:               defaultResync,
		synced:                          make(chan struct{}),
	}
	if o.mutationDetector || mutationDetectorFromEnv() {
		s.detector = newCacheMutationDetector(o.mutationReport, o.logger)
	}
	switch {
	case lw == nil:
		s.initErr = errors.New("informer: NewSharedIndexInformer needs a ListerWatcher")
	case !validQueue(o.queue):
		s.initErr = errorf("unknown queue kind %v", o.queue)
	}
	return s
}

// Run builds the queue and the Reflector, starts the handler goroutines and
// runs the process loop (see controller.run) until ctx is done. When it
// returns, the Reflector, the process loop and every handler goroutine have
// stopped — the handlers strictly after the process loop, so nothing is
// distributed to a stopped handler.
func (s *sharedIndexInformer) Run(ctx context.Context) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		s.logger.Warn("informer: Run called on an informer that has already started; ignored")
		return
	}
	s.started = true
	if s.initErr != nil {
		s.stopped = true
		s.mu.Unlock()
		s.logger.Error("informer: cannot run", "err", s.initErr)
		return
	}
	c := s.newControllerLocked()
	s.mu.Unlock()

	processorCtx, stopProcessor := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { s.processor.run(processorCtx) })
	wg.Go(func() { s.detector.run(processorCtx) })

	c.run(ctx)

	stopProcessor()
	wg.Wait()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

// newControllerLocked wires queue, Reflector and process loop.
func (s *sharedIndexInformer) newControllerLocked() *controller {
	qopts := deltafifo.Options{
		KeyFunction:  deltafifo.DeletionHandlingMetaNamespaceKeyFunc,
		KnownObjects: s.indexer,
		Transformer:  s.transform,
		Logger:       s.logger,
	}
	q, batch := newQueue(s.opts.queue, qopts)

	ropts := s.opts.reflector
	if ropts.Name == "" {
		ropts.Name = s.name
	}
	if s.opts.metrics != nil {
		ropts.MetricsProvider = s.opts.metrics
	}
	ropts.ResyncPeriod = s.resyncCheckPeriod
	ropts.ShouldResync = s.processor.shouldResync
	ropts.Logger = s.logger
	if s.watchErrorHandler != nil {
		ropts.WatchErrorHandler = s.watchErrorHandler
	}
	onSynced := func() { s.checkSynced(q) }
	store := syncSignallingStore{queue: q, onSynced: onSynced, trace: tracer{s.logger}}
	s.reflector = reflector.New(s.lw, s.exampleObject, store, ropts)

	return &controller{
		queue:        q,
		batchQueue:   batch,
		reflector:    s.reflector,
		process:      s.handleDeltas,
		processBatch: s.handleBatch,
		onSynced:     onSynced,
		logger:       s.logger,
	}
}

// checkSynced closes synced, and tells every handler, the first time the
// queue reports that the initial list has been processed.
func (s *sharedIndexInformer) checkSynced(q deltafifo.Queue) {
	if !q.HasSynced() {
		return
	}
	s.syncedOnce.Do(func() {
		close(s.synced)
		s.processor.markUpstreamSynced()
	})
}

// handleDeltas is the process function: steps 4-6 for one popped Deltas.
func (s *sharedIndexInformer) handleDeltas(deltas deltafifo.Deltas, isInInitialList bool) error {
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	trace := tracer{s.logger}
	return processDeltas(distributor{s.processor, s.detector, trace}, s.indexer, deltas, isInInitialList, trace)
}

// handleBatch is the batch process function: steps 4-6 for a batch of
// deltas to distinct objects, popped from an in-order queue.
func (s *sharedIndexInformer) handleBatch(deltas []deltafifo.Delta, isInInitialList bool) error {
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	trace := tracer{s.logger}
	return processBatch(distributor{s.processor, s.detector, trace}, s.indexer, deltas, isInInitialList, trace)
}

// distributor is the informer seen as the one handler processDeltas calls:
// it fans each call out to the registered handlers.
type distributor struct {
	p        *sharedProcessor
	detector *cacheMutationDetector // nil: off
	trace    tracer
}

func (d distributor) OnAdd(obj any, isInInitialList bool) {
	d.detector.add(obj)
	d.traceDispatch("add", obj, false)
	d.p.distribute(notification{kind: addNotification, newObj: obj, isInInitialList: isInInitialList}, false)
}

// OnUpdate marks an update whose resourceVersion did not change (a resync,
// or a relist that found the object unchanged) as sync: it reaches only the
// handlers currently flagged as due a resync.
func (d distributor) OnUpdate(oldObj, newObj any) {
	isSync := sameResourceVersion(oldObj, newObj)
	d.detector.add(newObj)
	d.traceDispatch("update", newObj, isSync)
	d.p.distribute(notification{kind: updateNotification, oldObj: oldObj, newObj: newObj}, isSync)
}

func (d distributor) OnDelete(obj any) {
	d.traceDispatch("delete", obj, false)
	d.p.distribute(notification{kind: deleteNotification, oldObj: obj}, false)
}

// traceDispatch traces step 6 before the handlers can run.
func (d distributor) traceDispatch(kind string, obj any, isSync bool) {
	if d.trace.on() {
		d.trace.dispatched(kind, obj, d.p.receivers(isSync), isSync)
	}
}

func (s *sharedIndexInformer) GetStore() indexer.Store     { return s.indexer }
func (s *sharedIndexInformer) GetIndexer() indexer.Indexer { return s.indexer }

func (s *sharedIndexInformer) AddIndexers(indexers indexer.Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errIndexerStopped
	}
	return s.indexer.AddIndexers(indexers)
}

func (s *sharedIndexInformer) SetTransform(transform deltafifo.TransformFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errAlreadyStarted
	}
	s.transform = transform
	return nil
}

func (s *sharedIndexInformer) SetWatchErrorHandler(handler reflector.WatchErrorHandler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errAlreadyStarted
	}
	s.watchErrorHandler = handler
	return nil
}

func (s *sharedIndexInformer) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

func (s *sharedIndexInformer) Done() <-chan struct{} { return s.synced }

func (s *sharedIndexInformer) Name() string { return "SharedIndexInformer " + s.name }

func (s *sharedIndexInformer) HasSyncedChecker() DoneChecker { return s }

func (s *sharedIndexInformer) HasStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

func (s *sharedIndexInformer) IsStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

func (s *sharedIndexInformer) SetShardSelector(expr string) error {
	s.mu.Lock()
	r := s.reflector
	if r == nil {
		defer s.mu.Unlock()
		if expr != "" {
			if _, err := shardselector.Parse(expr); err != nil {
				return fmt.Errorf("informer: invalid shard selector %q: %w", expr, err)
			}
		}
		s.opts.reflector.ShardSelector = expr
		return nil
	}
	s.mu.Unlock()
	return r.SetShardSelector(expr)
}

func (s *sharedIndexInformer) SetLabelSelector(sel string) error {
	s.mu.Lock()
	r := s.reflector
	if r == nil {
		defer s.mu.Unlock()
		if _, err := labels.Parse(sel); err != nil {
			return fmt.Errorf("informer: invalid label selector %q: %w", sel, err)
		}
		s.opts.reflector.LabelSelector = sel
		return nil
	}
	s.mu.Unlock()
	return r.SetLabelSelector(sel)
}

func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.mu.Lock()
	r := s.reflector
	s.mu.Unlock()
	if r == nil {
		return ""
	}
	return r.LastSyncResourceVersion()
}
