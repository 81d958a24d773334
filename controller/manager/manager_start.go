package manager

import (
	"context"
	"errors"
	"fmt"
	"github.com/informerlab/informerlab/controller/internal/ctrlutil"
	"slices"
)

// Start runs the Manager until ctx is done, a runnable fails, or leadership
// is lost:
//
//  1. serve /healthz and /readyz (if HealthProbeBindAddress is set) and the
//     admission webhooks (if admission.Server is set; a certificate that does
//     not load or an address that cannot be bound fails Start at once);
//  2. start the cache's informers and wait, at most CacheSyncTimeout, for
//     them to sync;
//  3. start the runnables that do not need leadership, and warm up those
//     that do and can ([WarmupRunnable]: a controller with
//     Options.EnableWarmup starts its sources now, so its queue is full
//     before it leads);
//  4. without leader election, start the leader runnables (controllers) and
//     close Elected; with it, campaign for the lease and do so once leading.
//
// Then it waits, and stops in reverse order, within GracefulShutdownTimeout:
// leader runnables; the lease, released so a successor need not wait for it
// to expire (not after a loss: it is not ours); other runnables; the cache;
// the webhook server; the health server.
//
// It returns nil when ctx ended, the first runnable error, or an error
// "leader election lost" when the lease could not be renewed within
// RenewDeadline (the controllers were stopped at once: another Manager may
// be taking over). If something does not stop within the timeout, the error
// says so and its goroutines are left running. A second call is an error.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return errors.New("controller: manager already started")
	}
	m.started = true
	m.mu.Unlock()

	// The Manager's own contexts are not children of ctx: when ctx ends,
	// shutdown cancels them one group at a time, in order.
	base := context.WithoutCancel(ctx)
	s := &shutdown{m: m}

	// 1. Health probes.
	if m.healthAddr != "" {
		stop, err := m.startHealthServer()
		if err != nil {
			return err
		}
		s.stopHealth = stop
	}
	if m.webhooks != nil {
		stop, err := m.startWebhookServer(base)
		if err != nil {
			return s.run(err)
		}
		s.stopWebhooks = stop
	}

	// 2. The cache.
	cacheCtx, cancelCache := context.WithCancel(base)
	s.cancelCache = cancelCache
	m.mu.Lock()
	m.cacheCtx = cacheCtx
	m.mu.Unlock()
	m.factory.Start(cacheCtx)
	if err := m.waitForCache(ctx); err != nil || ctx.Err() != nil {
		return s.run(err)
	}
	m.synced.Store(true)

	// 3. Runnables that need no leadership, and the warmup of those that do.
	m.others.start(base)
	s.stopWarmup = m.leaders.warmup(base)

	// 4. Leader election, then the leader runnables.
	lost := make(chan error, 1)
	if m.elector == nil {
		m.startLeading(base)
	} else {
		electionCtx, cancelElection := context.WithCancel(base)
		electionDone := make(chan struct{})
		s.stopElection = func() { cancelElection(); <-electionDone }
		go func() {
			defer close(electionDone)
			if err := m.elector.Run(electionCtx, func() { m.startLeading(base) }); err != nil {
				lost <- err
			}
		}()
	}

	var cause error
	select {
	case <-ctx.Done():
		m.logger.Info("stopping: context done")
	case cause = <-m.errs:
		m.logger.Error("stopping: a runnable failed", "err", cause)
	case cause = <-lost:
		s.lost = true
		m.logger.Error("stopping: leader election lost")
	}
	return s.run(cause)
}

// startLeading starts the leader runnables and announces it.
func (m *Manager) startLeading(base context.Context) {
	if m.leaders.start(base) {
		close(m.elected)
	}
}

// waitForCache waits for every informer of the cache to sync, within
// CacheSyncTimeout. The end of ctx is not an error.
func (m *Manager) waitForCache(ctx context.Context) error {
	syncCtx, cancel := context.WithTimeout(ctx, m.cacheSyncTimeout)
	defer cancel()
	var notSynced []string
	for gvr, ok := range m.factory.WaitForCacheSync(syncCtx) {
		if !ok {
			notSynced = append(notSynced, ctrlutil.ResourceName(gvr))
		}
	}
	if len(notSynced) == 0 || ctx.Err() != nil {
		return nil
	}
	slices.Sort(notSynced)
	return fmt.Errorf("controller: manager: timed out after %s waiting for the cache to sync: %v", m.cacheSyncTimeout, notSynced)
}

// shutdown stops what Start started, in reverse order, within the graceful
// shutdown timeout. Fields left nil were not started.
type shutdown struct {
	m            *Manager
	stopHealth   func()
	stopWebhooks func() error
	stopElection func()
	stopWarmup   context.CancelFunc
	cancelCache  context.CancelFunc
	// lost is set when leadership was lost: the lease is not ours to release.
	lost bool
}

// run stops everything and returns cause joined with any shutdown failure.
// Past the deadline it stops waiting: what has not stopped is still told
// to, and reported, but left running.
func (s *shutdown) run(cause error) error {
	m := s.m
	m.stopping.Store(true)
	deadlineCtx := context.Background()
	if m.gracefulShutdownTimeout > 0 {
		var cancel context.CancelFunc
		deadlineCtx, cancel = context.WithTimeout(deadlineCtx, m.gracefulShutdownTimeout)
		defer cancel()
	}
	var errs []error
	wait := func(what string, done <-chan struct{}) bool {
		select {
		case <-done:
			return true
		case <-deadlineCtx.Done():
			errs = append(errs, fmt.Errorf("controller: manager: graceful shutdown timed out after %s: %s still running", m.gracefulShutdownTimeout, what))
			return false
		}
	}

	// Controllers first: they must not act once the lease is gone, and they
	// read the cache until they stop.
	if s.stopWarmup != nil {
		s.stopWarmup() // the warmed sources end with their controllers
	}
	leadersStopped := wait("leader election runnables (controllers)", m.leaders.stop())
	if s.stopElection != nil {
		s.stopElection()
		if leadersStopped && !s.lost {
			// Safe now: nothing runs under the lease any more.
			m.elector.Release(deadlineCtx)
		}
	}
	wait("other runnables", m.others.stop())
	if s.cancelCache != nil {
		s.cancelCache()
		cacheDone := make(chan struct{})
		go func() {
			m.factory.Shutdown()
			close(cacheDone)
		}()
		wait("the cache's informers", cacheDone)
	}
	if s.stopWebhooks != nil {
		if err := s.stopWebhooks(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.stopHealth != nil {
		s.stopHealth()
	}
	// A runnable may have failed while stopping.
	if cause == nil {
		select {
		case cause = <-m.errs:
		default:
		}
	}
	if len(errs) > 0 {
		m.logger.Error("stopped with work still running", "err", errors.Join(errs...))
	} else {
		m.logger.Info("stopped")
	}
	return errors.Join(append([]error{cause}, errs...)...)
}

// startWebhookServer binds the webhook server and serves it on one
// goroutine; the returned function stops it and waits for that goroutine.
// A server that fails while running stops the Manager like a failed runnable.
func (m *Manager) startWebhookServer(base context.Context) (stop func() error, err error) {
	l, err := m.webhooks.Listen()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(base)
	done := make(chan error, 1)
	go func() {
		err := m.webhooks.Serve(ctx, l)
		if err != nil && ctx.Err() == nil {
			select {
			case m.errs <- err:
			default:
			}
		}
		done <- err
	}()
	return func() error {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}, nil
}
