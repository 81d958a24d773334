package manager

import (
	"context"
	"sync"
)

// Runnable is anything a [Manager] runs: Start must block until ctx is done
// (or the runnable fails), and return once everything it started has
// stopped. A [controller.Controller] is one. A Runnable that returns an error stops the
// whole Manager; one that returns nil just ends.
//
// client-go: controller-runtime pkg/manager.Runnable.
type Runnable interface {
	Start(ctx context.Context) error
}

// RunnableFunc adapts a plain function to a [Runnable].
//
// client-go: controller-runtime pkg/manager.RunnableFunc.
type RunnableFunc func(ctx context.Context) error

// Start calls f.
func (f RunnableFunc) Start(ctx context.Context) error { return f(ctx) }

// LeaderElectionRunnable is a Runnable that says whether it must run only on
// the elected leader. The Manager asks every Runnable it is given; one that
// does not implement it needs leadership, like a Controller by default. It
// and [WarmupRunnable] are the only optional interfaces the Manager looks
// for; they only route and time the runnable, they inject nothing.
//
// client-go: controller-runtime pkg/manager.LeaderElectionRunnable.
type LeaderElectionRunnable interface {
	NeedLeaderElection() bool
}

// WarmupRunnable is a leader-election Runnable that can do part of its
// start before the Manager leads: Warmup is called once the cache has
// synced, while the Manager campaigns, with a context that lasts until the
// leader runnables have stopped. A [controller.Controller] is one: with
// Options.EnableWarmup it starts its sources, so a standby's queue is full
// when it wins. The Manager looks for it only on runnables that need
// leadership and were added before Start.
//
// client-go: controller-runtime pkg/manager.warmupRunnable (unexported
// there; its Controller and Options.EnableWarmup are the same).
type WarmupRunnable interface {
	Warmup(ctx context.Context) error
}

// needsLeader reports whether r runs only while leading.
func needsLeader(r Runnable) bool {
	le, ok := r.(LeaderElectionRunnable)
	return !ok || le.NeedLeaderElection()
}

// runnableGroup runs runnables that start and stop together. Runnables added
// before start wait; added after, they start at once.
type runnableGroup struct {
	// errs receives the first error a runnable returns (it has room for one;
	// later errors are dropped, the manager is stopping by then).
	errs chan<- error

	wg sync.WaitGroup

	mu sync.Mutex // guards the fields below
	// ctx and cancel are set by start; the runnables get ctx.
	ctx     context.Context
	cancel  context.CancelFunc
	pending []Runnable
	stopped bool
}

func newRunnableGroup(errs chan<- error) *runnableGroup {
	return &runnableGroup{errs: errs}
}

// add runs r now if the group has started, or when it starts. It reports
// false if the group has stopped.
func (g *runnableGroup) add(r Runnable) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.stopped:
		return false
	case g.ctx == nil:
		g.pending = append(g.pending, r)
	default:
		g.launchLocked(r)
	}
	return true
}

// start runs the waiting runnables, and later ones, with a context derived
// from parent. It reports false if the group had started or stopped already.
func (g *runnableGroup) start(parent context.Context) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped || g.ctx != nil {
		return false
	}
	g.ctx, g.cancel = context.WithCancel(parent)
	for _, r := range g.pending {
		g.launchLocked(r)
	}
	g.pending = nil
	return true
}

func (g *runnableGroup) launchLocked(r Runnable) {
	ctx := g.ctx
	g.wg.Go(func() {
		if err := r.Start(ctx); err != nil {
			select {
			case g.errs <- err:
			default:
			}
		}
	})
}

// warmup calls Warmup, each on a goroutine of its own, on the waiting
// runnables that have it, with a context derived from parent; an error goes
// to errs. It returns the cancel of that context.
func (g *runnableGroup) warmup(parent context.Context) context.CancelFunc {
	ctx, cancel := context.WithCancel(parent)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.pending {
		w, ok := r.(WarmupRunnable)
		if !ok {
			continue
		}
		g.wg.Go(func() {
			if err := w.Warmup(ctx); err != nil {
				select {
				case g.errs <- err:
				default:
				}
			}
		})
	}
	return cancel
}

// stop cancels the runnables' context (a group never started never starts)
// and returns a channel closed once every runnable has returned.
func (g *runnableGroup) stop() <-chan struct{} {
	g.mu.Lock()
	g.stopped = true
	g.pending = nil
	if g.cancel != nil {
		g.cancel()
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	return done
}
