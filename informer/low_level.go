package informer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/reflector"
)

// Config is the diagram's Informer box on its own: a Reflector that fills
// Queue from ListerWatcher (steps 1-2) and a process loop that pops Queue
// and hands each popped Deltas to Process (step 3). What Process does with
// them — a cache, handlers, anything — is up to you. [SharedIndexInformer]
// is built on the same loop, with a cache and many handlers behind Process.
//
// Queue, ListerWatcher and Process are required; a Config without one is
// reported by Run, which then returns at once.
//
// client-go: tools/cache.Config.
type Config struct {
	// Queue receives what the Reflector lists and watches, and is popped by
	// the process loop: a [deltafifo.DeltaFIFO] or a [deltafifo.RealFIFO].
	// Run closes it when it returns.
	Queue deltafifo.Queue

	// ListerWatcher lists and watches the objects.
	ListerWatcher reflector.ListerWatcher

	// Process is called with every Deltas popped, on the goroutine that
	// called Run. An error is logged and the Deltas are dropped (nothing is
	// retried). A panic is not recovered: it ends Run, on the caller's
	// goroutine, after the Reflector has stopped.
	Process deltafifo.PopProcessFunc

	// ProcessBatch, if set and Queue is a [deltafifo.QueueWithBatch] (a
	// RealFIFO), is called with runs of changes to distinct objects instead
	// of Process (see [deltafifo.RealFIFO.PopBatch]).
	ProcessBatch deltafifo.ProcessBatchFunc

	// ObjectType is an example of the objects ListerWatcher returns; watch
	// events with anything else are skipped. nil accepts everything.
	ObjectType runtime.Object

	// FullResyncPeriod is how often the Reflector resyncs Queue (when
	// ShouldResync, if set, agrees); 0 means never.
	FullResyncPeriod time.Duration

	// ShouldResync is asked every FullResyncPeriod whether to resync now;
	// nil means always.
	ShouldResync func() bool

	// WatchErrorHandler is told about every list or watch failure; nil
	// means [reflector.DefaultWatchErrorHandler].
	WatchErrorHandler reflector.WatchErrorHandler

	// Reflector holds the Reflector's other options (name, paging, backoff,
	// watch timeouts, streaming lists). FullResyncPeriod, ShouldResync,
	// WatchErrorHandler and Logger replace what it says about them.
	Reflector reflector.Options

	// Logger receives the loop's and the Reflector's log lines. Default:
	// slog.Default().
	Logger *slog.Logger
}

// Controller runs a [Config]: the Reflector and the process loop. It is a
// [DoneChecker]: it has synced once the Queue says the initial list has
// been processed.
//
// client-go: tools/cache.Controller.
type Controller interface {
	// Run runs the Reflector on a goroutine of its own and the process loop
	// on the caller's until ctx is done, then closes the Queue and returns
	// once both have stopped. A Controller runs once.
	Run(ctx context.Context)

	// HasSynced reports whether the Queue has handed the whole initial list
	// to Process (see [deltafifo.DeltaFIFO.HasSynced]); Done is closed then.
	// Name is "Controller" and the Reflector's name.
	DoneChecker
	// HasSyncedChecker returns the Controller itself; it is here for code
	// written against client-go.
	HasSyncedChecker() DoneChecker

	// LastSyncResourceVersion is the resourceVersion the Reflector last saw
	// ("" before Run).
	LastSyncResourceVersion() string
}

// New returns a Controller that runs cfg (a copy of it). It starts no
// goroutine; Run does.
//
// client-go: tools/cache.New.
func New(cfg *Config) Controller {
	c := &lowLevelController{synced: make(chan struct{})}
	switch {
	case cfg == nil:
		cfg = &Config{}
		c.initErr = errors.New("informer: New needs a Config")
	case cfg.Queue == nil:
		c.initErr = errors.New("informer: Config needs a Queue")
	case cfg.ListerWatcher == nil:
		c.initErr = errors.New("informer: Config needs a ListerWatcher")
	case cfg.Process == nil:
		c.initErr = errors.New("informer: Config needs a Process function")
	}
	c.cfg = *cfg
	if c.cfg.Logger == nil {
		c.cfg.Logger = slog.Default()
	}
	return c
}

// lowLevelController is the Controller.
type lowLevelController struct {
	cfg     Config
	initErr error // reported by Run

	synced     chan struct{} // closed once the queue has synced
	syncedOnce sync.Once

	mu sync.Mutex // guards the fields below
	// Invariant: reflector is nil until Run has started.
	started   bool
	reflector *reflector.Reflector
}

func (c *lowLevelController) Run(ctx context.Context) {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		c.cfg.Logger.Warn("informer: Run called on a Controller that has already started; ignored")
		return
	}
	c.started = true
	if c.initErr != nil {
		c.mu.Unlock()
		c.cfg.Logger.Error("informer: cannot run", "err", c.initErr)
		return
	}
	loop := c.newLoopLocked()
	c.mu.Unlock()

	loop.run(ctx)
}

// newLoopLocked wires the Reflector and the process loop.
func (c *lowLevelController) newLoopLocked() *controller {
	q := c.cfg.Queue
	onSynced := func() {
		if q.HasSynced() {
			c.syncedOnce.Do(func() { close(c.synced) })
		}
	}
	ropts := c.cfg.Reflector
	ropts.ResyncPeriod = c.cfg.FullResyncPeriod
	ropts.ShouldResync = c.cfg.ShouldResync
	ropts.WatchErrorHandler = c.cfg.WatchErrorHandler
	ropts.Logger = c.cfg.Logger
	if ropts.Name == "" {
		ropts.Name = informerName(options{}, c.cfg.ObjectType)
	}
	trace := tracer{c.cfg.Logger}
	c.reflector = reflector.New(c.cfg.ListerWatcher, c.cfg.ObjectType,
		syncSignallingStore{queue: q, onSynced: onSynced, trace: trace}, ropts)

	loop := &controller{
		queue:     q,
		reflector: c.reflector,
		process:   c.cfg.Process,
		onSynced:  onSynced,
		logger:    c.cfg.Logger,
	}
	if b, ok := q.(deltafifo.QueueWithBatch); ok && c.cfg.ProcessBatch != nil {
		loop.batchQueue, loop.processBatch = b, c.cfg.ProcessBatch
	}
	return loop
}

func (c *lowLevelController) HasSynced() bool {
	select {
	case <-c.synced:
		return true
	default:
		return false
	}
}

func (c *lowLevelController) Done() <-chan struct{} { return c.synced }

func (c *lowLevelController) Name() string {
	name := c.cfg.Reflector.Name
	if name == "" {
		name = informerName(options{}, c.cfg.ObjectType)
	}
	return "Controller " + name
}

func (c *lowLevelController) HasSyncedChecker() DoneChecker { return c }

func (c *lowLevelController) LastSyncResourceVersion() string {
	c.mu.Lock()
	r := c.reflector
	c.mu.Unlock()
	if r == nil {
		return ""
	}
	return r.LastSyncResourceVersion()
}
