package reflector_test

import (
	"errors"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

func expired() *metav1.Status {
	return &apierrors.NewResourceExpired("too old resource version").ErrStatus
}

func connectionRefused() error {
	return &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/pods?watch=true",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
}

// Added, Modified and Deleted events become Store.Add, Update and Delete in
// the order they arrive; a bookmark changes nothing in the Store but moves
// LastSyncResourceVersion on.
// Diagram: step 2. client-go: handleAnyWatch
func TestWatchEventsReachStoreInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10", pod("a", "9"), pod("b", "10"))

		w.Add(pod("c", "11"))
		w.Modify(pod("a", "12"))
		w.Delete(pod("b", "13"))
		w.Action(watch.Bookmark, bookmark("14"))
		h.settle(t)

		assert.Equal(t, []string{"replace@10 [ns/a@9 ns/b@10]", "add ns/c@11", "update ns/a@12", "delete ns/b@13"}, h.store.take())
		assert.Equal(t, "14", h.r.LastSyncResourceVersion())
	})
}

// A watch the server ends normally (its timeout) is re-opened at once from
// the last resourceVersion seen; nothing is relisted.
// Diagram: step 1. client-go: Reflector.watch (err == nil)
func TestCleanWatchEndRewatchesWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10")
		w.Add(pod("c", "11"))
		w.Stop()
		before := time.Now()
		w2 := h.lw.expectWatch(t, "11").respondWatch()
		assert.Zero(t, time.Since(before), "no backoff after a clean end")

		time.Sleep(2 * time.Second) // a quiet watch, longer than a second
		w2.Stop()
		h.lw.expectWatch(t, "11").respondWatch()
		h.settle(t)

		assert.Equal(t, []string{"new -> listing", "listing -> watching", "watching -> watching", "watching -> watching"}, h.takeTransitions())
		assert.Empty(t, h.errs)
	})
}

// A watch that closes within a second without a single event is an error
// ("very short watch"): something refuses watches, and re-watching at once
// would spin. The Reflector backs off and relists.
// Diagram: step 1. client-go: handleAnyWatch (very short watch)
func TestVeryShortWatchBacksOffAndRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10")

		w.Stop()
		before := time.Now()
		h.lw.expectList(t, "10", 0).respondList(podList("10"))

		assert.Equal(t, 800*time.Millisecond, time.Since(before))
		assert.Contains(t, h.logs.String(), "very short watch")
		h.lw.expectWatch(t, "10").respondWatch()
		h.settle(t)
	})
}

// A watch that ends with 410 Expired (the server no longer has the history
// from our resourceVersion) is stopped; the Reflector backs off and relists at
// the last resourceVersion it saw, not at "": the list may well succeed there.
// The error is routine and does not reach the WatchErrorHandler.
// Diagram: step 1. client-go: Reflector.watch (isExpiredError)
func TestExpiredWatchRelistsAtLastSeenResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10")
		w.Modify(pod("a", "15"))

		w.Error(expired())
		before := time.Now()
		h.lw.expectList(t, "15", 0).respondList(podList("20"))

		assert.Equal(t, 800*time.Millisecond, time.Since(before))
		assert.True(t, w.IsStopped(), "the expired watch was stopped")
		assert.Empty(t, h.errs)
		h.lw.expectWatch(t, "20").respondWatch()
		h.settle(t)
		assert.Equal(t, []string{"new -> listing", "listing -> watching", "watching -> backing off to relist",
			"backing off to relist -> listing", "listing -> watching"}, h.takeTransitions())
	})
}

// 429 Too Many Requests (when opening the watch or as an ERROR event) and
// connection refused mean the server is overloaded or down, not that our
// state is stale: back off and re-watch from the same resourceVersion, never
// relist, which would be the most expensive request there is.
// Diagram: step 1. client-go: isWatchErrorRetriable, Reflector.watch (IsTooManyRequests)
func TestThrottledOrRefusedWatchRewatchesWithoutRelist(t *testing.T) {
	cases := map[string]func(h *harness, c *call){
		"429 when opening": func(_ *harness, c *call) { c.fail(apierrors.NewTooManyRequests("slow down", 1)) },
		"connection refused when opening": func(_ *harness, c *call) {
			c.fail(connectionRefused())
		},
		"429 during the watch": func(_ *harness, c *call) {
			c.respondWatch().Error(&apierrors.NewTooManyRequests("slow down", 1).ErrStatus)
		},
	}
	for name, fail := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, reflector.Options{})
				h.lw.expectList(t, "0", 500).respondList(podList("10"))

				fail(h, h.lw.expectWatch(t, "10"))
				before := time.Now()
				h.lw.expectWatch(t, "10").respondWatch()

				assert.Equal(t, 800*time.Millisecond, time.Since(before))
				assert.Empty(t, h.errs)
				h.settle(t)
				assert.Contains(t, h.takeTransitions(), "backing off to re-watch -> watching")
			})
		})
	}
}

// Any other way a watch ends badly — an ERROR event with another status, an
// ERROR event that is not even a Status — is logged as a warning; the
// Reflector backs off and relists.
// Diagram: step 1. client-go: Reflector.watch (default case)
func TestOtherWatchErrorsRelistAfterBackoff(t *testing.T) {
	cases := map[string]*watch.Event{
		"500 internal error": {Type: watch.Error, Object: &apierrors.NewInternalError(errors.New("boom")).ErrStatus},
		"not a status":       {Type: watch.Error, Object: pod("oops", "1")},
	}
	for name, ev := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, reflector.Options{})
				w := h.sync(t, "10")

				w.Action(ev.Type, ev.Object)
				before := time.Now()
				h.lw.expectList(t, "10", 0).respondList(podList("10"))

				assert.Equal(t, 800*time.Millisecond, time.Since(before))
				assert.Contains(t, h.logs.String(), "level=WARN msg=\"reflector: watch ended with an error; relisting\"")
				h.lw.expectWatch(t, "10").respondWatch()
				h.settle(t)
			})
		})
	}
}

// A watch that cannot be opened for any other reason (403, a nil watch) makes
// ListAndWatch return the error: the WatchErrorHandler sees it, and the
// Reflector backs off and relists.
// Diagram: step 1. client-go: Reflector.watch (watch start error), DefaultWatchErrorHandler
func TestWatchThatCannotBeOpenedGoesToErrorHandlerAndRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		h.lw.expectList(t, "0", 500).respondList(podList("10"))

		h.lw.expectWatch(t, "10").fail(apierrors.NewForbidden(podsGR, "", errors.New("no RBAC")))
		errForbidden := <-h.errs
		h.lw.expectList(t, "10", 0).respondList(podList("11"))
		h.lw.expectWatch(t, "11").reply <- reply{} // nil watch, nil error
		errNil := <-h.errs
		h.lw.expectList(t, "11", 0).respondList(podList("12"))
		h.lw.expectWatch(t, "12").respondWatch()

		assert.True(t, apierrors.IsForbidden(errForbidden))
		assert.ErrorContains(t, errForbidden, "reflector: failed to watch")
		assert.ErrorContains(t, errNil, "nil watch")
		h.settle(t)
	})
}

// The re-watch backoff and the relist backoff are one sequence: 800ms, 1.6s,
// 3.2s whichever kind of retry comes next.
// Diagram: step 1. client-go: Reflector.backoffManager
func TestRewatchAndRelistShareOneBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		h.lw.expectList(t, "0", 500).respondList(podList("10"))
		var delays []time.Duration

		h.lw.expectWatch(t, "10").fail(apierrors.NewTooManyRequests("slow down", 1))
		before := time.Now()
		h.lw.expectWatch(t, "10").fail(apierrors.NewTooManyRequests("slow down", 1))
		delays = append(delays, time.Since(before))
		before = time.Now()
		h.lw.expectWatch(t, "10").respondWatch().Error(&apierrors.NewInternalError(errors.New("boom")).ErrStatus)
		delays = append(delays, time.Since(before))
		before = time.Now()
		h.lw.expectList(t, "10", 0).respondList(podList("10"))
		delays = append(delays, time.Since(before))

		assert.Equal(t, []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond}, delays)
		h.lw.expectWatch(t, "10").respondWatch()
		h.settle(t)
	})
}

// An event whose object is not of the expected Go type (or, for
// Unstructured, not of the expected kind) is logged and skipped; the watch
// goes on and the resourceVersion is not taken from it.
// Diagram: step 2. client-go: handleAnyWatch (expectedType, expectedGVK)
func TestWrongTypeWatchEventIsSkippedWithALogLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10")

		w.Add(&metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "11"}})
		w.Add(pod("c", "12"))
		h.settle(t)

		assert.Equal(t, []string{"replace@10 []", "add ns/c@12"}, h.store.take())
		assert.Regexp(t, `level=ERROR msg="reflector: skipping watch event of the wrong type" .*eventType=ADDED want=\*v1.PartialObjectMetadata got=\*v1.PartialObjectMetadataList`, h.logs.String())
	})
}

// The same check for Unstructured objects compares apiVersion and kind.
// Diagram: step 2. client-go: handleAnyWatch (expectedGVK)
func TestWrongKindUnstructuredWatchEventIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cm := func(kind, name, rv string) *unstructured.Unstructured {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("v1")
			u.SetKind(kind)
			u.SetNamespace("ns")
			u.SetName(name)
			u.SetResourceVersion(rv)
			return u
		}
		expected := &unstructured.Unstructured{}
		expected.SetAPIVersion("v1")
		expected.SetKind("ConfigMap")
		h := start(t, reflector.Options{}, withExpectedType(expected))
		require.Equal(t, "/v1, Kind=ConfigMap", h.r.TypeDescription())
		w := h.sync(t, "10")

		w.Add(cm("Secret", "s", "11"))
		w.Add(cm("ConfigMap", "c", "12"))
		h.settle(t)

		assert.Equal(t, []string{"replace@10 []", "add ns/c@12"}, h.store.take())
		assert.Contains(t, h.logs.String(), "wrong kind")
		assert.Equal(t, "12", h.r.LastSyncResourceVersion())
	})
}

// A watch from "" or "0" starts with the current state as synthetic Added
// events in no resourceVersion order: their resourceVersions are not recorded
// until the first event of another kind, so a re-watch never starts from the
// middle of that initial burst.
// Diagram: step 1. client-go: handleAnyWatch (watch started at "" or "0")
func TestWatchFromEmptyResourceVersionRecordsVersionsAfterFirstNonAddedEvent(t *testing.T) {
	for _, startRV := range []string{"", "0"} {
		t.Run("from "+startRV, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, reflector.Options{})
				w := h.sync(t, startRV)

				w.Add(pod("a", "5"))
				w.Add(pod("b", "3"))
				h.settle(t)
				assert.Equal(t, startRV, h.r.LastSyncResourceVersion(), "synthetic Added events are not recorded")
				w.Modify(pod("a", "6"))
				h.settle(t)
				assert.Equal(t, "6", h.r.LastSyncResourceVersion())
				w.Add(pod("c", "7"))
				h.settle(t)
				assert.Equal(t, "7", h.r.LastSyncResourceVersion())
			})
		})
	}
}

// Each watch asks the server to end it after a random time in
// [MinWatchTimeout, 2*MinWatchTimeout] (5-10 minutes by default), so that
// reflectors started together do not re-watch together.
// Diagram: step 1. client-go: Reflector.watch (timeoutSeconds)
func TestWatchTimeoutIsRandomBetweenMinAndTwiceMin(t *testing.T) {
	cases := []struct {
		min  time.Duration
		rand float64
		want int64
	}{
		{0, 0, 300},
		{0, 0.5, 450},
		{0, 0.999, 599},
		{time.Minute, 0.25, 75},
	}
	for _, tc := range cases {
		synctest.Test(t, func(t *testing.T) {
			h := start(t, reflector.Options{MinWatchTimeout: tc.min}, withRand(func() float64 { return tc.rand }))
			h.lw.expectList(t, "0", 500).respondList(podList("1"))
			c := h.lw.expectWatch(t, "1")
			assert.Equal(t, tc.want, *c.opts.TimeoutSeconds, "min %v rand %v", tc.min, tc.rand)
			c.respondWatch()
		})
	}
}

// A Store that rejects one event loses that event (with a log line); the
// watch goes on.
// Diagram: step 2. client-go: handleAnyWatch (store errors are logged)
func TestStoreErrorOnWatchEventIsLoggedAndWatchGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "10")
		h.store.failWith("add", errors.New("full"))

		w.Add(pod("a", "11"))
		w.Modify(pod("b", "12"))
		h.settle(t)

		assert.Equal(t, []string{"replace@10 []", "add ns/a@11", "update ns/b@12"}, h.store.take())
		assert.Contains(t, h.logs.String(), "the Store rejected a watch event")
		assert.Equal(t, "12", h.r.LastSyncResourceVersion())
		assert.False(t, w.IsStopped())
	})
}

// Malformed events — no object, a nil pointer, an unknown event type, an
// object without metadata — are logged and skipped, never a panic; the watch
// goes on.
// Diagram: step 2. client-go: handleAnyWatch (unable to understand watch event)
func TestMalformedWatchEventsAreSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{}, withExpectedType(nil))
		w := h.sync(t, "10")

		w.Add(nil)
		w.Add((*metav1.PartialObjectMetadata)(nil))
		w.Action("SURPRISE", pod("x", "11"))
		w.Add(&metav1.Status{})
		w.Add(pod("a", "12"))
		h.settle(t)

		assert.Equal(t, []string{"replace@10 []", "add ns/a@12"}, h.store.take())
		logs := h.logs.String()
		assert.Contains(t, logs, "skipping watch event without an object")
		assert.Contains(t, logs, "skipping watch event of unknown type")
		assert.Contains(t, logs, "skipping watch event without object metadata")
		assert.Equal(t, "12", h.r.LastSyncResourceVersion())
		assert.False(t, w.IsStopped())
	})
}
