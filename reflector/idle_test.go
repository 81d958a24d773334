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

// A watch request whose answer never starts — a frozen proxy, or a server that
// accepts the connection and never sends the response headers — is held to
// the same idle timeout as a silent watch: the request is cancelled and a new
// watch is sent from the same resourceVersion, without a relist. Without this
// the Reflector would wait inside Watch forever and the cache would freeze.
// Diagram: step 1. client-go: none (client-go waits for the headers until the watch's own timeoutSeconds, 5-10 minutes)
func TestWatchRequestWithNoAnswerIsAbandonedAfterIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{IdleTimeout: 30 * time.Second})
		h.lw.expectList(t, "0", 500).respondList(podList("10"))

		before := time.Now()
		unanswered := h.lw.expectWatch(t, "10")
		h.lw.expectWatch(t, "10").respondWatch()

		assert.Equal(t, 30*time.Second, time.Since(before), "the unanswered request was given up after IdleTimeout")
		h.settle(t)
		assert.Len(t, unanswered.reply, 0, "nobody answered the first request")
		assert.Equal(t, []string{"new -> listing", "listing -> watching", "watching -> watching"}, h.takeTransitions())
		assert.Contains(t, h.logs.String(), "watch request got no answer")
		assert.Empty(t, h.errs)
	})
}

// The same holds for a streaming list whose request gets no answer: after
// IdleTimeout it is abandoned, and the Reflector falls back to a List.
// Diagram: step 1. client-go: none
func TestStreamingListRequestWithNoAnswerFallsBackToList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{UseWatchList: true, IdleTimeout: 30 * time.Second})

		before := time.Now()
		expectWatchList(t, h, "")
		h.lw.expectList(t, "0", 500).respondList(podList("10"))

		assert.Equal(t, 30*time.Second, time.Since(before))
		h.lw.expectWatch(t, "10").respondWatch()
		h.settle(t)
		assert.Equal(t, []string{"new -> watch-listing", "watch-listing -> listing", "listing -> watching"}, h.takeTransitions())
	})
}

// A watch that answers in time keeps its request alive for as long as it
// runs: the clock that guards the answer is stopped once Watch returns.
// Diagram: step 1. client-go: none
func TestAnsweredWatchOutlivesTheNoAnswerClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{IdleTimeout: 30 * time.Second})
		w := h.sync(t, "10")

		time.Sleep(20 * time.Second)
		w.Add(pod("a", "11"))
		time.Sleep(20 * time.Second)
		w.Add(pod("b", "12"))
		h.settle(t)

		assert.False(t, w.IsStopped(), "a watch with events 20 s apart is never cut off")
		assert.Equal(t, []string{"add ns/a@11", "add ns/b@12"}, h.store.take()[1:])
	})
}
