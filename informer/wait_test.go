package informer

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// countingChecker is a DoneChecker whose channel closes after delay and
// which counts how often HasSynced is asked.
type countingChecker struct {
	name  string
	done  chan struct{}
	asked atomic.Int64
}

func newCountingChecker(delay time.Duration) *countingChecker {
	c := &countingChecker{name: "counting", done: make(chan struct{})}
	time.AfterFunc(delay, func() { close(c.done) })
	return c
}

func (c *countingChecker) HasSynced() bool {
	c.asked.Add(1)
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
func (c *countingChecker) Done() <-chan struct{} { return c.done }
func (c *countingChecker) Name() string          { return c.name }

// TestWaitForCacheSyncBlocksOnDoneChannelsWithoutPolling waits for two
// checkers that sync at 3s and 7s: it returns at exactly 7s, having asked
// each HasSynced once.
//
// Diagram: step 6. client-go: tools/cache.WaitFor.
func TestWaitForCacheSyncBlocksOnDoneChannelsWithoutPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := newCountingChecker(3*time.Second), newCountingChecker(7*time.Second)
		start := time.Now()

		ok := WaitForCacheSync(context.Background(), a, b)

		assert.True(t, ok)
		t.Logf("two informers that sync at 3s and 7s: WaitForCacheSync returned %v after %v, asking each HasSynced %d and %d times", ok, time.Since(start), a.asked.Load(), b.asked.Load())
		assert.Equal(t, 7*time.Second, time.Since(start))
		assert.Equal(t, int64(1), a.asked.Load())
		assert.Equal(t, int64(1), b.asked.Load())
	})
}

// TestWaitForCacheSyncPollsPlainFunctions waits for an InformerSynced
// function that turns true at 250ms: it is noticed at the next poll, 300ms.
//
// Diagram: step 6. client-go: tools/cache.WaitForCacheSync.
func TestWaitForCacheSyncPollsPlainFunctions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		synced := InformerSynced(func() bool { return time.Since(start) >= 250*time.Millisecond })

		ok := WaitForCacheSync(context.Background(), synced)

		assert.True(t, ok)
		t.Logf("a plain function that turns true at 250ms: noticed at the next 100ms poll, after %v", time.Since(start))
		assert.Equal(t, 300*time.Millisecond, time.Since(start))
	})
}

// TestWaitForCacheSyncGivesUpWhenTheContextEnds waits for a checker that
// never syncs, then for a nil checker.
//
// Diagram: step 6. client-go: tools/cache.WaitForCacheSync.
func TestWaitForCacheSyncGivesUpWhenTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		never := newCountingChecker(time.Hour)
		start := time.Now()

		ok := WaitForCacheSync(ctx, InformerSynced(func() bool { return true }), never)

		assert.False(t, ok)
		t.Logf("one checker never syncs: WaitForCacheSync returned %v when its 2s context ended, after %v", ok, time.Since(start))
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.False(t, WaitForCacheSync(context.Background(), nil))
	})
}

// named returns a countingChecker called name that syncs after delay.
func named(name string, delay time.Duration) *countingChecker {
	c := newCountingChecker(delay)
	c.name = name
	return c
}

// TestWaitForLogsEachCheckerAsItSyncsThenTheOnesThatDidNot waits for
// "caches" with three checkers; two sync at 0s and 3s, one never, and the
// wait is cancelled at 5s with a cause. The log says what is waited for,
// each checker as it syncs, in that order, and then the ones that did not,
// sorted, with the cause.
//
// Diagram: step 6. client-go: tools/cache.WaitFor.
func TestWaitForLogsEachCheckerAsItSyncsThenTheOnesThatDidNot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		noTime := func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
		old := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime})))
		t.Cleanup(func() { slog.SetDefault(old) })
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(5*time.Second, func() { cancel(errors.New("shutting down")) })

		ok := WaitFor(ctx, "caches", named("slow", time.Hour), named("second", 3*time.Second), named("first", 0), named("never", time.Hour))

		assert.False(t, ok)
		assert.Equal(t, []string{
			`level=INFO msg="informer: waiting" for=caches`,
			`level=INFO msg="informer: done waiting" for=caches instance=first`,
			`level=INFO msg="informer: done waiting" for=caches instance=second`,
			`level=INFO msg="informer: timed out waiting" for=caches cause="shutting down" instances="[never slow]"`,
		}, strings.Split(strings.TrimSpace(buf.String()), "\n"))
	})
}
