package informer

import (
	"context"
	"time"
)

// DoneChecker is something that becomes synced once and stays synced: an
// informer ([SharedIndexInformer]), a handler registration
// ([ResourceEventHandlerRegistration]), or a plain function wrapped as an
// [InformerSynced].
//
// Done returns a channel that is closed once HasSynced is true, so a waiter
// can block on it instead of asking again and again. A checker that has no
// such channel returns nil, and [WaitForCacheSync] then falls back to asking
// HasSynced periodically.
//
// client-go: tools/cache.DoneChecker (with HasSynced in place of Name).
type DoneChecker interface {
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

// HasSynced calls f.
func (f InformerSynced) HasSynced() bool { return f() }

// Done returns nil: a function has no channel to close.
func (f InformerSynced) Done() <-chan struct{} { return nil }

// SyncedPollPeriod is how often WaitForCacheSync asks an [InformerSynced]
// function again; it matches client-go's.
const SyncedPollPeriod = 100 * time.Millisecond

// WaitForCacheSync blocks until every checker has synced, and returns true,
// or until ctx is done, and returns false (unless all had synced by then).
// Checkers with a Done channel are waited on without polling; plain
// [InformerSynced] functions are asked every [SyncedPollPeriod]. A nil
// checker can never sync: WaitForCacheSync returns false at once.
//
// It waits for what you pass. An informer that has synced says nothing about
// its handlers: to know a handler has seen the initial list, wait for the
// registration AddEventHandler returned, too.
//
// client-go: tools/cache.WaitForCacheSync (polling) and tools/cache.WaitFor
// (channels).
func WaitForCacheSync(ctx context.Context, cacheSyncs ...DoneChecker) bool {
	for _, c := range cacheSyncs {
		if c == nil {
			return false
		}
		if c.HasSynced() {
			continue
		}
		if !waitFor(ctx, c) {
			return false
		}
	}
	return true
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
