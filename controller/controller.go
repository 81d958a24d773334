package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informerlab/informerlab/workqueue"
)

// DefaultCacheSyncTimeout is how long Start waits for its sources to sync
// when Options.CacheSyncTimeout is zero.
const DefaultCacheSyncTimeout = 2 * time.Minute

// Options configure a [Controller]. The zero value is a working
// configuration.
//
// client-go: controller-runtime pkg/controller.Options.
type Options struct {
	// MaxConcurrentReconciles is the number of workers, each reconciling one
	// Request at a time. 0 means 1. Requests for the same object are never
	// reconciled concurrently, whatever the number.
	MaxConcurrentReconciles int

	// RateLimiter says how long a Request that failed waits before its
	// next try. nil means workqueue.DefaultControllerRateLimiter: per
	// Request exponential backoff from 5ms to 1000s, and 10 retries per
	// second overall with bursts of 100.
	RateLimiter workqueue.RateLimiter[Request]

	// RecoverPanic, when nil or true, turns a panic in Reconcile into an
	// error (retried with backoff, logged with its stack, counted). false
	// lets the panic crash the program.
	RecoverPanic *bool

	// CacheSyncTimeout bounds how long Start waits for its sources to
	// sync before the first Reconcile. 0 means DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration

	// NeedLeaderElection, when nil or true, makes a [manager.Manager] run the
	// controller only while it holds the leader lease.
	NeedLeaderElection *bool

	// EnableWarmup, when true, lets a [manager.Manager] start the
	// controller's sources before it wins the leader election (see
	// [Controller.Warmup]): a standby's queue then holds every key of the
	// initial lists, and on winning its workers start at once. false
	// starts the sources only when the controller starts.
	EnableWarmup bool

	// Logger receives the controller's logs. nil means slog.Default().
	Logger *slog.Logger
}

// Controller is the loop at the bottom of the diagram: sources turn informer
// events into Requests on a rate-limiting workqueue (step 7), and workers
// take Requests off it (step 8) and call the [Reconciler], which reads the
// object from the cache (step 9).
//
//	sources --7 Add--> workqueue --8 Get--> worker x N --> Reconcile(ctx, req)
//	                       ^                                 |
//	                       +-- AddRateLimited / AddAfter ----+
//
// New builds it; Watch adds sources, before or after Start; Start runs it
// until its context ends. A Controller is safe for concurrent use and runs
// once.
//
// client-go: controller-runtime pkg/internal/controller.Controller (and the
// hand-written loop of sample-controller's controller.go).
type Controller struct {
	name             string
	reconciler       Reconciler
	workers          int
	recoverPanic     bool
	cacheSyncTimeout time.Duration
	needLeader       bool
	warmup           bool
	logger           *slog.Logger
	queue            workqueue.RateLimitingInterface[Request]

	counts counters

	mu sync.Mutex // guards the fields below
	// pending holds the sources watched before Start; Start starts them and
	// sets it to nil.
	pending []Source
	// started is set by the first Start. ctx is the context sources are
	// started with: Warmup's if it ran first, else Start's; a source
	// watched once it is set starts at once, until stopped is set.
	started bool
	stopped bool
	ctx     context.Context
	// warmed is closed when Warmup's sources have synced (or failed, with
	// warmErr); nil while Warmup has not run.
	warmed  chan struct{}
	warmErr error
}

// New returns a controller called name that calls reconciler. The name
// appears in logs and errors and names the queue; a [manager.Manager] requires it
// to be unique among its controllers. New starts no goroutine.
//
// client-go: controller-runtime pkg/controller.NewUnmanaged.
func New(name string, reconciler Reconciler, opts Options) (*Controller, error) {
	switch {
	case name == "":
		return nil, errors.New("controller: name must not be empty")
	case reconciler == nil:
		return nil, fmt.Errorf("controller %q: reconciler is nil", name)
	case opts.MaxConcurrentReconciles < 0:
		return nil, fmt.Errorf("controller %q: MaxConcurrentReconciles is negative (%d)", name, opts.MaxConcurrentReconciles)
	case opts.CacheSyncTimeout < 0:
		return nil, fmt.Errorf("controller %q: CacheSyncTimeout is negative (%s)", name, opts.CacheSyncTimeout)
	}
	c := &Controller{
		name:             name,
		reconciler:       reconciler,
		workers:          max(opts.MaxConcurrentReconciles, 1),
		recoverPanic:     opts.RecoverPanic == nil || *opts.RecoverPanic,
		cacheSyncTimeout: opts.CacheSyncTimeout,
		needLeader:       opts.NeedLeaderElection == nil || *opts.NeedLeaderElection,
		warmup:           opts.EnableWarmup,
		logger:           opts.Logger,
	}
	if c.cacheSyncTimeout == 0 {
		c.cacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	c.logger = c.logger.With("controller", name)
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.DefaultControllerRateLimiter[Request]()
	}
	c.queue = workqueue.NewRateLimiting(limiter, workqueue.WithName(name))
	return c, nil
}

// Name returns the controller's name.
func (c *Controller) Name() string { return c.name }

// NeedLeaderElection reports whether a [manager.Manager] runs the controller only
// while leading (Options.NeedLeaderElection).
func (c *Controller) NeedLeaderElection() bool { return c.needLeader }

// Watch adds a source of events. Before Start, the source waits and Start
// starts it, waiting for it to sync before the first Reconcile. After Start,
// Watch starts it at once; the controller does not wait for it to sync
// (it is already reconciling). After the controller has stopped, Watch fails.
func (c *Controller) Watch(src Source) error {
	if src == nil {
		return fmt.Errorf("controller %q: Watch: source is nil", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.stopped:
		return fmt.Errorf("controller %q: Watch after the controller stopped", c.name)
	case c.ctx == nil:
		c.pending = append(c.pending, src)
		return nil
	}
	if err := src.Start(c.ctx, c.queue); err != nil {
		return fmt.Errorf("controller %q: starting %s: %w", c.name, sourceName(src), err)
	}
	return nil
}

// Start runs the controller until ctx is done:
//
//  1. It starts every source watched so far, and waits, at most
//     CacheSyncTimeout, for each [SyncingSource] to sync, so that every
//     object of the initial lists is on the queue before the first Reconcile
//     (after [Controller.Warmup], it only waits for Warmup's sources).
//  2. It starts MaxConcurrentReconciles workers, each running
//     processNextWorkItem in a loop.
//  3. When ctx is done it shuts the queue down, lets each worker finish the
//     Reconcile it is in, and returns once every worker has exited. Requests
//     still queued are dropped: a controller is level-based, and whoever runs
//     next starts from the initial list again.
//
// It returns nil when ctx ends, or an error if a source fails to start or
// to sync in time (naming the source). A second call is an error.
func (c *Controller) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("controller %q: started more than once", c.name)
	}
	c.started = true
	ctx = withLogger(ctx, c.logger)
	warmed := c.warmed
	var sources []Source
	if warmed == nil {
		c.ctx = ctx
		sources = c.pending
		c.pending = nil
	}
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		c.stopped = true
		c.mu.Unlock()
	}()
	defer c.queue.ShutDown()

	if warmed != nil {
		// Warmup started the sources: wait until they synced.
		select {
		case <-warmed:
		case <-ctx.Done():
			return nil
		}
		if c.warmErr != nil {
			return c.warmErr
		}
	} else if err := c.startSources(ctx, sources); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while waiting: not a failure
		}
		return err
	}

	c.logger.Info("starting workers", "count", c.workers)
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			for c.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.logger.Info("stopping: waiting for workers to finish their Reconcile")
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// Warmup starts the controller's sources before Start, if
// Options.EnableWarmup is set (otherwise it does nothing): they run with
// ctx, which must last as long as the controller, fill the queue with the
// initial lists' keys and keep it up to date, and Warmup returns once they
// have synced (at most CacheSyncTimeout). No worker runs: a standby keeps
// its queue warm, and when it wins the leader election, Start starts the
// workers at once. Sources watched after Warmup start at once, with ctx.
// Warmup after Start, or a second time, does nothing.
//
// client-go: controller-runtime pkg/internal/controller.Controller.Warmup
// (Options.EnableWarmup).
func (c *Controller) Warmup(ctx context.Context) error {
	c.mu.Lock()
	if !c.warmup || c.started || c.warmed != nil || c.stopped {
		c.mu.Unlock()
		return nil
	}
	ctx = withLogger(ctx, c.logger)
	c.ctx = ctx
	c.warmed = make(chan struct{})
	sources := c.pending
	c.pending = nil
	c.mu.Unlock()

	c.logger.Info("warming up: starting sources before leading", "count", len(sources))
	err := c.startSources(ctx, sources)
	if err != nil && ctx.Err() != nil {
		err = nil // stopped while waiting: not a failure
	}
	c.mu.Lock()
	c.warmErr = err
	close(c.warmed)
	c.mu.Unlock()
	return err
}

// startSources starts every source, then waits for the syncing ones.
func (c *Controller) startSources(ctx context.Context, sources []Source) error {
	for i, src := range sources {
		if err := src.Start(ctx, c.queue); err != nil {
			return fmt.Errorf("controller %q: starting source %d (%s): %w", c.name, i+1, sourceName(src), err)
		}
	}
	syncCtx, cancel := context.WithTimeoutCause(ctx, c.cacheSyncTimeout,
		fmt.Errorf("timed out after %s", c.cacheSyncTimeout))
	defer cancel()
	for i, src := range sources {
		syncing, ok := src.(SyncingSource)
		if !ok {
			continue
		}
		if err := syncing.WaitForSync(syncCtx); err != nil {
			return fmt.Errorf("controller %q: waiting for source %d (%s) to sync: %w", c.name, i+1, sourceName(src), err)
		}
	}
	c.logger.Info("sources synced", "count", len(sources))
	return nil
}

// sourceName names a source in errors.
func sourceName(src Source) string {
	if s, ok := src.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", src)
}

// Counts returns how many Reconciles ended in each way so far.
func (c *Controller) Counts() ReconcileCounts {
	return c.counts.snapshot()
}

// QueueLen returns how many Requests wait on the controller's queue now,
// ready for a worker (step 8): the queue's Len. Requests in a Reconcile and
// Requests waiting out a backoff or a RequeueAfter are not counted; a
// Request added several times while it waits counts once. It is a reading
// for a view or a metric, stale as soon as it returns.
//
// client-go: controller-runtime's workqueue_depth metric.
func (c *Controller) QueueLen() int { return c.queue.Len() }

// ReconcileCounts counts finished Reconciles by outcome.
//
// client-go: controller-runtime's controller_runtime_reconcile_total,
// _reconcile_errors_total, _terminal_reconcile_errors_total and
// _reconcile_panics_total metrics.
type ReconcileCounts struct {
	Success        int64 // no error, zero Result
	RequeueAfter   int64 // no error, RequeueAfter > 0
	Errors         int64 // an error that will be retried (panics included)
	TerminalErrors int64 // a TerminalError: not retried
	Panics         int64 // recovered panics (also counted in Errors)
}

type counters struct {
	success, requeueAfter, errors, terminal, panics atomic.Int64
}

func (c *counters) snapshot() ReconcileCounts {
	return ReconcileCounts{
		Success:        c.success.Load(),
		RequeueAfter:   c.requeueAfter.Load(),
		Errors:         c.errors.Load(),
		TerminalErrors: c.terminal.Load(),
		Panics:         c.panics.Load(),
	}
}
