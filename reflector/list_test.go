package reflector_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/reflector"
)

// The first list asks for resourceVersion "0" (any recent state, cheap for the
// server) in pages of 500, the whole result replaces the Store, and the watch
// starts at the list's resourceVersion with bookmarks and a timeout.
// Diagram: step 1, 2. client-go: Reflector.list, relistResourceVersion
func TestFirstListIsAtResourceVersionZeroAndReplacesStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})

		h.lw.expectList(t, "0", 500).respondList(podList("7", pod("a", "3"), pod("b", "7")))
		w := h.lw.expectWatch(t, "7")

		assert.Equal(t, []string{"replace@7 [ns/a@3 ns/b@7]"}, h.store.take())
		assert.Equal(t, "7", h.r.LastSyncResourceVersion())
		assert.Equal(t, int64(300), *w.opts.TimeoutSeconds, "rand 0 gives the minimum watch timeout")
		w.respondWatch()
		h.settle(t)
		assert.Equal(t, []string{"new -> listing", "listing -> watching"}, h.takeTransitions())
	})
}

// A relist after a watch failure asks for the last resourceVersion the
// Reflector saw (never going back in time), without a Limit
// so that the API server can answer from its watch cache.
// Diagram: step 1. client-go: Reflector.list (pagination switched off for a specific resourceVersion)
func TestRelistUsesLastSeenResourceVersionWithoutPaging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		w := h.sync(t, "7")
		w.Modify(pod("a", "9"))

		w.Error(&apierrors.NewResourceExpired("too old resource version: 9 (12)").ErrStatus)
		h.lw.expectList(t, "9", 0).respondList(podList("12", pod("a", "12")))
		h.lw.expectWatch(t, "12").respondWatch()

		assert.Equal(t, []string{"replace@7 []", "update ns/a@9", "replace@12 [ns/a@12]"}, h.store.take())
		h.settle(t)
	})
}

// When a list at a resourceVersion fails because that version is no longer
// (410 Expired) or not yet (too large) available, the Reflector lists again at
// once at "" (the newest state, a consistent read), and goes back to its
// normal rule after that list succeeds.
// Diagram: step 1. client-go: Reflector.list, isExpiredError, isTooLargeResourceVersionError
func TestUnavailableResourceVersionRelistsAtOnceAtEmpty(t *testing.T) {
	tooLarge := apierrors.NewTimeoutError("Too large resource version", 1)
	tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	cases := map[string]error{
		"410 expired":              apierrors.NewResourceExpired("too old resource version"),
		"410 gone (old servers)":   &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonGone}},
		"too large (status cause)": tooLarge,
		"too large (old message)":  apierrors.NewTimeoutError("Too large resource version: 12, current: 9", 1),
	}
	for name, listErr := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, reflector.Options{})
				w := h.sync(t, "7")
				w.Error(&apierrors.NewResourceExpired("expired").ErrStatus)
				h.lw.expectList(t, "7", 0).fail(listErr)

				before := time.Now()
				h.lw.expectList(t, "", 500).respondList(podList("20"))
				assert.Zero(t, time.Since(before), "the retry at \"\" is immediate")
				h.lw.expectWatch(t, "20").respondWatch().Error(&apierrors.NewResourceExpired("expired").ErrStatus)

				h.lw.expectList(t, "20", 0).respondList(podList("21"))
				h.lw.expectWatch(t, "21").respondWatch()
				h.settle(t)
				assert.Contains(t, h.takeTransitions(), "listing -> listing")
			})
		})
	}
}

// Lists at "0" and "" are paginated: the Reflector follows continue tokens
// (later pages carry only the token), replaces the Store with every item at
// the first page's resourceVersion.
// Diagram: step 1. client-go: tools/pager.ListPager
func TestListFollowsContinueTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})

		h.lw.expectList(t, "0", 500).respondList(page("30", "c1", pod("a", "1"), pod("b", "2")))
		p2 := h.lw.expectList(t, "", 500)
		assert.Equal(t, "c1", p2.opts.Continue)
		p2.respondList(page("30", "c2", pod("c", "3")))
		p3 := h.lw.expectList(t, "", 500)
		assert.Equal(t, "c2", p3.opts.Continue)
		p3.respondList(page("30", "", pod("d", "4")))
		h.lw.expectWatch(t, "30").respondWatch()

		assert.Equal(t, []string{"replace@30 [ns/a@1 ns/b@2 ns/c@3 ns/d@4]"}, h.store.take())
		h.settle(t)
	})
}

// If the first list at "0" came back in pages, the server has no watch cache
// for this resource: later relists at a specific resourceVersion are paginated
// too instead of asking for everything at once.
// Diagram: step 1. client-go: Reflector.paginatedResult
func TestPaginatedFirstListKeepsRelistsPaginated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		h.lw.expectList(t, "0", 500).respondList(page("30", "c1", pod("a", "1")))
		h.lw.expectList(t, "", 500).respondList(page("30", "", pod("b", "2")))
		w := h.lw.expectWatch(t, "30").respondWatch()

		w.Error(&apierrors.NewResourceExpired("expired").ErrStatus)

		h.lw.expectList(t, "30", 500).respondList(podList("40"))
		h.lw.expectWatch(t, "40").respondWatch()
		h.settle(t)
	})
}

// A continue token that expires half way (the server compacted its history)
// makes the Reflector list again in one request at the original
// resourceVersion rather than fail.
// Diagram: step 1. client-go: tools/pager.ListPager (FullListIfExpired)
func TestExpiredContinueTokenFallsBackToOneFullList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		h.lw.expectList(t, "0", 500).respondList(page("30", "c1", pod("a", "1")))
		h.lw.expectList(t, "", 500).fail(apierrors.NewResourceExpired("continue token expired"))

		full := h.lw.expectList(t, "0", 0)
		assert.Empty(t, full.opts.Continue)
		full.respondList(podList("35", pod("a", "1"), pod("b", "33")))
		h.lw.expectWatch(t, "35").respondWatch()

		assert.Equal(t, []string{"replace@35 [ns/a@1 ns/b@33]"}, h.store.take())
		h.settle(t)
	})
}

// Options.PageSize sets the Limit of every list, relists included.
// Diagram: step 1. client-go: Reflector.WatchListPageSize
func TestPageSizeOptionAppliesToEveryList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{PageSize: 2})
		h.lw.expectList(t, "0", 2).respondList(podList("5"))
		h.lw.expectWatch(t, "5").respondWatch().Error(&apierrors.NewResourceExpired("expired").ErrStatus)

		h.lw.expectList(t, "5", 2).respondList(podList("6"))
		h.lw.expectWatch(t, "6").respondWatch()
		h.settle(t)
	})
}

// A failed list is handed to the WatchErrorHandler; the Reflector backs off
// (800ms, then 1.6s, ...) and lists again at the same resourceVersion.
// Diagram: step 1. client-go: Reflector.RunWithContext, DefaultWatchErrorHandler
func TestFailedListGoesToErrorHandlerAndIsRetriedAfterBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})

		h.lw.expectList(t, "0", 500).fail(apierrors.NewInternalError(errors.New("etcd is down")))
		err := <-h.errs
		before := time.Now()
		h.lw.expectList(t, "0", 500).fail(apierrors.NewServiceUnavailable("starting"))
		first := time.Since(before)
		<-h.errs
		before = time.Now()
		h.lw.expectList(t, "0", 500).respondList(podList("3"))
		second := time.Since(before)
		h.lw.expectWatch(t, "3").respondWatch()

		assert.True(t, apierrors.IsInternalError(err), "the handler sees the API error: %v", err)
		assert.ErrorContains(t, err, "reflector: failed to list")
		assert.Equal(t, 800*time.Millisecond, first)
		assert.Equal(t, 1600*time.Millisecond, second)
		h.settle(t)
	})
}

// A Store that rejects the list fails the list: the error goes to the
// handler, and the Reflector relists after a backoff.
// Diagram: step 2. client-go: Reflector.syncWith
func TestReplaceErrorFailsTheListAndRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})
		h.store.failWith("replace", errors.New("store closed"))

		h.lw.expectList(t, "0", 500).respondList(podList("3", pod("a", "3")))
		err := <-h.errs
		h.store.failWith("replace", nil)
		h.lw.expectList(t, "0", 500).respondList(podList("4", pod("a", "4")))
		h.lw.expectWatch(t, "4").respondWatch()

		assert.ErrorContains(t, err, "reflector: unable to sync list result: store closed")
		assert.Equal(t, "4", h.r.LastSyncResourceVersion())
		h.settle(t)
	})
}

// Malformed list results are errors, not panics: a nil list, something that
// is not a list, and a server whose continue token never changes.
// Diagram: step 1. client-go: Reflector.list
func TestMalformedListResultIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{})

		h.lw.expectList(t, "0", 500).respondList(nil)
		errNil := <-h.errs
		h.lw.expectList(t, "0", 500).respondList(pod("not-a-list", "1"))
		errNotList := <-h.errs
		h.lw.expectList(t, "0", 500).respondList(page("5", "same"))
		h.lw.expectList(t, "", 500).respondList(page("5", "same"))
		errLoop := <-h.errs

		assert.ErrorContains(t, errNil, "nil list")
		assert.ErrorContains(t, errNotList, "unable to understand list result")
		assert.ErrorContains(t, errLoop, "pagination did not advance")
		assert.Empty(t, h.store.take())
		h.settle(t)
	})
}
