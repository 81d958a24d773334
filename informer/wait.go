package informer

import (
	"context"
	"log/slog"
	"slices"
	"time"
)

// DoneChecker is something that becomes synced once and stays synced: an
// informer ([SharedIndexInformer]), a handler registration
// ([ResourceEventHandlerRegistration]), a [Controller], or a plain function
// wrapped as an [InformerSynced].
//
// Done returns a channel that is closed once HasSynced is true, so a waiter
// can block on it instead of asking again and again. A checker that has no
// such channel returns nil, and [WaitFor] then falls back to asking
// HasSynced periodically. Name says what is waited for, in WaitFor's log
// lines.
//
// client-go: tools/cache.DoneChecker, which has Name and Done only. Here a
// checker also answers HasSynced: that is what lets a plain function be
// one (it has no channel), and it is client-go's IsDone(checker).
type DoneChecker interface {
	Name() string
	HasSynced() bool
	Done() <-chan struct{}
}

// InformerSynced reports whether something has synced. It is the plain
// function form of a [DoneChecker]: wrap any func() bool in it to wait for it,
// e.g. WaitForCacheSync(ctx, informer.InformerSynced(myCheck)).
//
// A function cannot say when its answer changes, so WaitForCacheSync has to
// ask it again every [SyncedPollPeriod]. Prefer passing the informer or the
// registration itself: they have a Done channel and are waited for without
// polling.
//
// client-go: tools/cache.InformerSynced.
type InformerSynced func() bool

// Name returns "InformerSynced": a function has no name of its own.
func (f InformerSynced) Name() string { return "InformerSynced" }

// HasSynced calls f.
func (f InformerSynced) HasSynced() bool { return f() }

// Done returns nil: a function has no channel to close.
func (f InformerSynced) Done() <-chan struct{} { return nil }

// SyncedPollPeriod is how often WaitFor asks an [InformerSynced] function
// again; it matches client-go's.
const SyncedPollPeriod = 100 * time.Millisecond

// WaitForCacheSync is [WaitFor] without log lines: it blocks until every
// checker has synced, and returns true, or until ctx is done, and returns
// false (unless all had synced by then).
//
// It waits for what you pass. An informer that has synced says nothing about
// its handlers: to know a handler has seen the initial list, wait for the
// registration AddEventHandler returned, too.
//
// client-go: tools/cache.WaitForCacheSync (which polls every function).
func WaitForCacheSync(ctx context.Context, cacheSyncs ...DoneChecker) bool {
	return WaitFor(ctx, "", cacheSyncs...)
}

// WaitFor blocks until every checker has synced, and returns true, or until
// ctx is done, and returns false (unless all had synced by then). Checkers
// with a Done channel are waited on without polling, all at once; plain
// [InformerSynced] functions are asked every [SyncedPollPeriod]. A nil
// checker can never sync: WaitFor returns false at once.
//
// Unless what is "", it logs to slog.Default() that it is waiting for what,
// then each checker's Name as it syncs, in the order they sync, and at the
// end the names of those that had not synced, sorted, with why it stopped
// waiting (context.Cause). Those lines say which cache holds a program up.
//
// client-go: tools/cache.WaitFor.
func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	logger := slog.Default()
	if what != "" {
		logger.Info("informer: waiting", "for", what)
	}
	if slices.Contains(checkers, nil) {
		if what != "" {
			logger.Info("informer: timed out waiting", "for", what, "cause", "a nil DoneChecker never syncs")
		}
		return false
	}
	if what == "" && allSynced(checkers) {
		return true
	}

	// One goroutine per checker, so each is noticed (and logged) as soon
	// as it syncs; every one has sent its result before WaitFor returns.
	type result struct {
		c    DoneChecker
		done bool
	}
	results := make(chan result, len(checkers))
	for _, c := range checkers {
		go func() { results <- result{c, waitFor(ctx, c)} }()
	}
	var notSynced []string
	for range checkers {
		r := <-results
		switch {
		case !r.done:
			notSynced = append(notSynced, r.c.Name())
		case what != "":
			logger.Info("informer: done waiting", "for", what, "instance", r.c.Name())
		}
	}
	if what != "" && len(notSynced) > 0 {
		slices.Sort(notSynced)
		logger.Info("informer: timed out waiting", "for", what, "cause", context.Cause(ctx), "instances", notSynced)
	}
	return len(notSynced) == 0
}

// allSynced asks every checker once.
func allSynced(checkers []DoneChecker) bool {
	all := true
	for _, c := range checkers {
		all = c.HasSynced() && all
	}
	return all
}

func waitFor(ctx context.Context, c DoneChecker) bool {
	if done := c.Done(); done != nil {
		select {
		case <-done:
			return true
		case <-ctx.Done():
			return c.HasSynced()
		}
	}
	// No channel: the fallback for plain functions.
	if c.HasSynced() {
		return true
	}
	ticker := time.NewTicker(SyncedPollPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			if c.HasSynced() {
				return true
			}
		case <-ctx.Done():
			return c.HasSynced()
		}
	}
}
