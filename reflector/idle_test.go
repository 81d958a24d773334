package reflector_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// A watch on which nothing arrives — not even a bookmark — for the idle
// timeout (3 minutes by default: three missed bookmarks) is treated as dead: it
// is stopped and re-opened from the last resourceVersion, without a relist.
// Anything arriving, bookmarks included, restarts the count. This is the
// defence against an informer that silently stops on a half-open connection.
// Diagram: step 1. client-go: none (kube-rs watcher idle timeout)
func TestSilentWatchIsReopenedAfterIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10")

		before := time.Now()
		w2 := h.lw.expectWatch(t, "10").respondWatch()
		assert.Equal(t, reflector.DefaultIdleTimeout, time.Since(before))
		assert.True(t, w.IsStopped(), "the silent watch was stopped")

		before = time.Now()
		time.Sleep(2 * time.Minute)
		w2.Action(watch.Bookmark, bookmark("15"))
		h.lw.expectWatch(t, "15").respondWatch()
		assert.Equal(t, 5*time.Minute, time.Since(before), "the bookmark at 2m restarted the count")

		h.settle(t)
		assert.Equal(t, []string{"new -> listing", "listing -> watching", "watching -> watching", "watching -> watching"}, h.takeTransitions())
		assert.Contains(t, h.logs.String(), "watch silent for too long")
		assert.Empty(t, h.errs)
	})
}

// IdleTimeout sets the limit; a negative value turns the check off, as in
// client-go.
// Diagram: step 1. client-go: none (kube-rs watcher idle timeout)
func TestIdleTimeoutOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{IdleTimeout: 30 * time.Second})
		h.sync(t, "10")
		before := time.Now()
		h.lw.expectWatch(t, "10").respondWatch()
		assert.Equal(t, 30*time.Second, time.Since(before))
	})
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{IdleTimeout: -1})
		w := h.sync(t, "10")
		h.lw.expectNoCall(t, time.Hour)
		assert.False(t, w.IsStopped())
	})
}
