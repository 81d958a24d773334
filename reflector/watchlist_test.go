package reflector_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// expectWatchList waits for the next call and checks it is a streaming list
// from rv.
func expectWatchList(t *testing.T, h *harness, rv string) *call {
	t.Helper()
	c := h.lw.next(t)
	require.Equal(t, "watch", c.verb, "expected a streaming list, got a List with %+v", c.opts)
	assert.Equal(t, rv, c.opts.ResourceVersion)
	assert.Equal(t, metav1.ResourceVersionMatchNotOlderThan, c.opts.ResourceVersionMatch)
	if assert.NotNil(t, c.opts.SendInitialEvents) {
		assert.True(t, *c.opts.SendInitialEvents)
	}
	assert.True(t, c.opts.AllowWatchBookmarks)
	assert.NotNil(t, c.opts.TimeoutSeconds)
	return c
}

// With UseWatchList the initial state arrives as Added events on a watch,
// ended by a bookmark annotated k8s.io/initial-events-end. The Reflector
// replaces the Store with what it collected, at the bookmark's
// resourceVersion, and keeps the same stream open as its watch: no List, no
// second Watch.
// Diagram: step 1, 2. client-go: Reflector.watchList
func TestWatchListStreamsInitialStateThenKeepsWatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{UseWatchList: true})

		w := expectWatchList(t, h, "").respondWatch()
		w.Add(pod("a", "3"))
		w.Add(pod("b", "5"))
		w.Modify(pod("a", "4"))
		w.Add(pod("c", "6"))
		w.Delete(pod("c", "6"))
		w.Action(watch.Bookmark, bookmark("7")) // an ordinary bookmark does not end the initial events
		w.Action(watch.Bookmark, initialEventsEnd("8"))
		h.settle(t)
		assert.Equal(t, []string{"replace@8 [ns/a@4 ns/b@5]"}, h.store.take())
		assert.Equal(t, "8", h.r.LastSyncResourceVersion())

		w.Modify(pod("b", "9"))
		h.settle(t)
		assert.Equal(t, []string{"update ns/b@9"}, h.store.take())
		assert.Equal(t, []string{"new -> watch-listing", "watch-listing -> watching"}, h.takeTransitions())
		h.lw.expectNoCall(t, time.Minute)
	})
}

// A server that does not support streaming lists (it rejects
// sendInitialEvents), a stream that ends before the initial-events-end
// bookmark, and one that goes silent: the Reflector falls back to a List at
// once, rather than wait or retry the stream forever.
// Diagram: step 1. client-go: Reflector.ListAndWatchWithContext (fallbackToList)
func TestWatchListFallsBackToList(t *testing.T) {
	cases := map[string]func(c *call){
		"rejected": func(c *call) {
			c.fail(apierrors.NewInvalid(schema.GroupKind{Kind: "ListOptions"}, "",
				field.ErrorList{field.Forbidden(field.NewPath("sendInitialEvents"), "not enabled")}))
		},
		"stream ended before the bookmark": func(c *call) {
			w := c.respondWatch()
			w.Add(pod("a", "3"))
			w.Stop()
		},
		"stream went silent": func(c *call) {
			c.respondWatch().Add(pod("a", "3"))
		},
	}
	for name, fail := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, reflector.Options{UseWatchList: true})
				fail(expectWatchList(t, h, ""))

				h.lw.expectList(t, "0", 500).respondList(podList("10", pod("a", "3")))
				h.lw.expectWatch(t, "10").respondWatch()

				assert.Equal(t, []string{"replace@10 [ns/a@3]"}, h.store.take())
				h.settle(t)
				assert.Contains(t, h.takeTransitions(), "watch-listing -> listing")
				assert.Contains(t, h.logs.String(), "falling back to a list")
			})
		})
	}
}

// A streaming relist from a resourceVersion the server no longer has (410)
// is retried once, at once, from "".
// Diagram: step 1. client-go: Reflector.watchList (isExpiredError)
func TestWatchListExpiredRetriesFromEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{UseWatchList: true})
		w := expectWatchList(t, h, "").respondWatch()
		w.Action(watch.Bookmark, initialEventsEnd("8"))
		w.Error(expired())

		expectWatchList(t, h, "8").fail(apierrors.NewResourceExpired("too old"))
		before := time.Now()
		w = expectWatchList(t, h, "").respondWatch()
		assert.Zero(t, time.Since(before))
		w.Add(pod("a", "12"))
		w.Action(watch.Bookmark, initialEventsEnd("12"))
		h.settle(t)

		assert.Equal(t, []string{"replace@8 []", "replace@12 [ns/a@12]"}, h.store.take())
		assert.Contains(t, h.takeTransitions(), "watch-listing -> watch-listing")
	})
}

// 429 and connection refused back the streaming list off, then retry it.
// Diagram: step 1. client-go: Reflector.watchList (isWatchErrorRetriable)
func TestWatchListThrottledBacksOffAndRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{UseWatchList: true})
		expectWatchList(t, h, "").fail(apierrors.NewTooManyRequests("slow down", 1))
		before := time.Now()
		expectWatchList(t, h, "").fail(connectionRefused())
		first := time.Since(before)
		before = time.Now()
		expectWatchList(t, h, "").respondWatch().Action(watch.Bookmark, initialEventsEnd("3"))
		second := time.Since(before)
		h.settle(t)

		assert.Equal(t, 800*time.Millisecond, first)
		assert.Equal(t, 1600*time.Millisecond, second)
		assert.Equal(t, []string{"replace@3 []"}, h.store.take())
	})
}

// A failing Store.Replace after a streaming list also falls back to a list.
// Diagram: step 2. client-go: Reflector.watchList (Replace error)
func TestWatchListReplaceErrorFallsBackToList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{UseWatchList: true})
		h.store.failWith("replace", errors.New("closed"))
		w := expectWatchList(t, h, "").respondWatch()
		w.Action(watch.Bookmark, initialEventsEnd("3"))

		c := h.lw.expectList(t, "0", 500)
		assert.True(t, w.IsStopped())
		h.store.failWith("replace", nil)
		c.respondList(podList("4"))
		h.lw.expectWatch(t, "4").respondWatch()
		h.settle(t)
	})
}
