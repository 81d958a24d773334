package fakeapi_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

func ptr[T any](v T) *T { return &v }

// TestWatchFromEmptyResourceVersionStartsWithSyntheticAdds checks that a
// watch from "" or "0" first sends ADDED for every current object (in key
// order), then live events.
// Diagram: step 1. client-go: Reflector's "don't advance RV until the first non-ADDED event" rule needs this.
func TestWatchFromEmptyResourceVersionStartsWithSyntheticAdds(t *testing.T) {
	for _, rv := range []string{"", "0"} {
		synctest.Test(t, func(t *testing.T) {
			s := newServer(t, fakeapi.Options{})
			cms := s.Resource(configMaps).Namespace("default")
			mustCreate(t, cms, configMap("default", "b"))
			mustCreate(t, cms, configMap("default", "a"))

			w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: rv})
			require.NoError(t, err)
			defer w.Stop()
			mustCreate(t, cms, configMap("default", "c"))

			assert.Equal(t, "ADDED a@3", nameRV(next(t, w)))
			assert.Equal(t, "ADDED b@2", nameRV(next(t, w)))
			assert.Equal(t, "ADDED c@4", nameRV(next(t, w)))
		})
	}
}

// TestWatchFromResourceVersionReplaysHistory checks that a watch from N
// replays every event after N, then goes live; DELETED carries the last
// state stamped with the deletion's resourceVersion.
// Diagram: step 1. client-go: Reflector.watch resumes from LastSyncResourceVersion.
func TestWatchFromResourceVersionReplaysHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		a := mustCreate(t, cms, configMap("default", "a"))           // rv 2
		mustCreate(t, cms, configMap("default", "b"))                // rv 3
		a.Object["data"] = map[string]any{"k": "v2"}                 //
		_, err := cms.Update(t.Context(), a, metav1.UpdateOptions{}) // rv 4
		require.NoError(t, err)
		require.NoError(t, cms.Delete(t.Context(), "b", metav1.DeleteOptions{})) // rv 5

		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		defer w.Stop()
		mustCreate(t, cms, configMap("default", "c")) // rv 6

		assert.Equal(t, "ADDED b@3", nameRV(next(t, w)))
		assert.Equal(t, "MODIFIED a@4", nameRV(next(t, w)))
		del := next(t, w)
		assert.Equal(t, "DELETED b@5", nameRV(del))
		assert.Equal(t, map[string]any{"k": "v"}, del.Object.(*unstructured.Unstructured).Object["data"])
		assert.Equal(t, "ADDED c@6", nameRV(next(t, w)))
		expectQuiet(t, w)
	})
}

// TestWatchFromCompactedResourceVersionGetsExpiredError checks the real
// server's answer to a too-old resourceVersion: one ERROR event carrying a
// 410 Expired Status, then the end of the watch.
// Diagram: step 1. client-go: Reflector relists on a 410 (isExpiredError).
func TestWatchFromCompactedResourceVersionGetsExpiredError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{HistoryLimit: 2})
		cms := s.Resource(configMaps).Namespace("default")
		for _, n := range []string{"a", "b", "c", "d"} {
			mustCreate(t, cms, configMap("default", n))
		}

		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		wOK, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "3"})
		require.NoError(t, err)
		defer wOK.Stop()

		ev := next(t, w)
		require.Equal(t, watch.Error, ev.Type)
		st := ev.Object.(*metav1.Status)
		assert.Equal(t, int32(http.StatusGone), st.Code)
		assert.Equal(t, metav1.StatusReasonExpired, st.Reason)
		assert.Equal(t, "too old resource version: 2 (4)", st.Message)
		expectClosed(t, w)
		assert.Equal(t, "ADDED c@4", nameRV(next(t, wOK)))
	})
}

// TestEmptyServerListsAtResourceVersionOneAndWatchesFromIt checks that an
// empty server lists at "1", never "0" (which means "any version" and would
// make a watch start with synthetic ADDED events): a watch from "1" replays
// every later write, the first of which gets resourceVersion 2; after a
// compaction past those writes, a watch from "1" gets 410 Expired, while a
// compaction of a server still at "1" leaves a watch from "1" valid.
// Diagram: step 1. client-go: Reflector watches from the resourceVersion of its list.
func TestEmptyServerListsAtResourceVersionOneAndWatchesFromIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		list, err := cms.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		require.Equal(t, "1", listRV(t, list))
		assert.Empty(t, names(t, list))
		assert.Equal(t, uint64(1), s.CurrentResourceVersion())

		mustCreate(t, cms, configMap("default", "a"))
		mustCreate(t, cms, configMap("default", "b"))
		replay, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: listRV(t, list)})
		require.NoError(t, err)
		defer replay.Stop()
		assert.Equal(t, "ADDED a@2", nameRV(next(t, replay)))
		assert.Equal(t, "ADDED b@3", nameRV(next(t, replay)))

		s.Compact()
		expired, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "1"})
		require.NoError(t, err)
		ev := next(t, expired)
		require.Equal(t, watch.Error, ev.Type)
		assert.True(t, apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)), "got %v", ev.Object)
		expectClosed(t, expired)

		empty := newServer(t, fakeapi.Options{})
		empty.Compact()
		fromOne, err := empty.Resource(configMaps).Namespace("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: "1"})
		require.NoError(t, err)
		defer fromOne.Stop()
		mustCreate(t, empty.Resource(configMaps).Namespace("default"), configMap("default", "x"))
		assert.Equal(t, "ADDED x@2", nameRV(next(t, fromOne)))
	})
}

// TestWatchAheadOfServerWaitsForThatVersion checks a plain watch from a
// resourceVersion the server has not reached: it opens, sends nothing (no
// event, no bookmark) until that version exists, then every event after
// it. A streaming list from such a version is refused with an ERROR 504
// and its ResourceVersionTooLarge cause instead.
// Diagram: step 1. client-go: none (kube-apiserver's watch cache waits; apierrors.IsTooLargeResourceVersion for the streaming list).
func TestWatchAheadOfServerWaitsForThatVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{BookmarkInterval: time.Second})
		cms := s.Resource(configMaps).Namespace("default")
		mustCreate(t, cms, configMap("default", "a")) // rv 2

		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "4", AllowWatchBookmarks: true})
		require.NoError(t, err)
		defer w.Stop()
		streaming, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "4",
			SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		require.NoError(t, err)

		time.Sleep(5 * time.Second) // bubble time: several bookmark intervals
		expectQuiet(t, w)
		mustCreate(t, cms, configMap("default", "b")) // rv 3
		mustCreate(t, cms, configMap("default", "c")) // rv 4
		expectQuiet(t, w)
		mustCreate(t, cms, configMap("default", "d")) // rv 5

		assert.Equal(t, "ADDED d@5", nameRV(next(t, w)))
		assert.Equal(t, "BOOKMARK @5", nameRV(next(t, w)), "bookmarks only once the version exists")
		ev := next(t, streaming)
		require.Equal(t, watch.Error, ev.Type)
		st := ev.Object.(*metav1.Status)
		assert.Equal(t, int32(http.StatusGatewayTimeout), st.Code)
		assert.Equal(t, metav1.CauseTypeResourceVersionTooLarge, st.Details.Causes[0].Type)
		expectClosed(t, streaming)
	})
}

// TestNoOpUpdateEmitsNoEvent checks that a write that changes nothing is
// invisible to watches.
// Diagram: step 1. client-go: informers do not see no-op updates.
func TestNoOpUpdateEmitsNoEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		obj := mustCreate(t, cms, configMap("default", "a"))
		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: obj.GetResourceVersion()})
		require.NoError(t, err)
		defer w.Stop()

		_, err = cms.Update(t.Context(), obj, metav1.UpdateOptions{})
		require.NoError(t, err)
		_, err = cms.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
		require.NoError(t, err)

		expectQuiet(t, w)
	})
}

// TestWatchSelectorMovesBecomeAddedAndDeleted checks that an object whose
// labels move it into a watch's selector arrives as ADDED, and one moving
// out as DELETED (its previous state, at the change's resourceVersion).
// Diagram: step 1. client-go: filtered informers (WithTweakListOptions) rely on this.
func TestWatchSelectorMovesBecomeAddedAndDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "0", LabelSelector: "app=web"})
		require.NoError(t, err)
		defer w.Stop()

		mustCreate(t, cms, configMap("default", "a", "app", "db"))                                                                         // rv 2, outside
		_, err = cms.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"web"}}}`), metav1.PatchOptions{}) // rv 3, in
		require.NoError(t, err)
		_, err = cms.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"data":{"x":"y"}}`), metav1.PatchOptions{}) // rv 4, still in
		require.NoError(t, err)
		_, err = cms.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"db"}}}`), metav1.PatchOptions{}) // rv 5, out
		require.NoError(t, err)

		assert.Equal(t, "ADDED a@3", nameRV(next(t, w)))
		assert.Equal(t, "MODIFIED a@4", nameRV(next(t, w)))
		out := next(t, w)
		assert.Equal(t, "DELETED a@5", nameRV(out))
		assert.Equal(t, "web", out.Object.(*unstructured.Unstructured).GetLabels()["app"], "DELETED carries the last state inside the selector")
		expectQuiet(t, w)
	})
}

// TestWatchFiltersByNamespaceAndField checks namespace narrowing and a
// metadata.name field selector.
// Diagram: step 1. client-go: cache.NewListWatchFromClient with a field selector.
func TestWatchFiltersByNamespaceAndField(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		w, err := s.Resource(configMaps).Namespace("default").Watch(t.Context(),
			metav1.ListOptions{ResourceVersion: "0", FieldSelector: "metadata.name=a"})
		require.NoError(t, err)
		defer w.Stop()

		mustCreate(t, s.Resource(configMaps).Namespace("kube-system"), configMap("kube-system", "a"))
		mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "b"))
		mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

		assert.Equal(t, "ADDED a@4", nameRV(next(t, w)))
		expectQuiet(t, w)
	})
}

// TestWatchBookmarksCarryLatestResourceVersion checks periodic bookmarks:
// only when allowed, at the configured interval, carrying only kind,
// apiVersion and the resourceVersion the watch has caught up to (which
// includes writes it filtered out).
// Diagram: step 1. client-go: Reflector updates LastSyncResourceVersion on BOOKMARK.
func TestWatchBookmarksCarryLatestResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{BookmarkInterval: 10 * time.Second})
		cms := s.Resource(configMaps).Namespace("default")
		mustCreate(t, cms, configMap("default", "a"))
		withBM, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2", AllowWatchBookmarks: true, LabelSelector: "x=y"})
		require.NoError(t, err)
		defer withBM.Stop()
		without, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		defer without.Stop()
		mustCreate(t, s.Resource(leases).Namespace("default"), &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "l"}}}) // rv 3

		start := time.Now()
		bm := next(t, withBM)

		assert.Equal(t, watch.Bookmark, bm.Type)
		assert.Equal(t, 10*time.Second, time.Since(start))
		u := bm.Object.(*unstructured.Unstructured)
		assert.Equal(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"resourceVersion": "3"}}, u.Object)
		time.Sleep(time.Minute) // bubble time: several bookmark periods pass
		expectQuiet(t, without)
	})
}

// TestWatchEndsAtTimeoutSeconds checks that the server ends a watch cleanly
// at timeoutSeconds.
// Diagram: step 1. client-go: Reflector sets a random 5-10 minute timeoutSeconds.
func TestWatchEndsAtTimeoutSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		w, err := s.Resource(configMaps).Watch(t.Context(), metav1.ListOptions{TimeoutSeconds: ptr(int64(30))})
		require.NoError(t, err)
		start := time.Now()

		expectClosed(t, w)

		assert.Equal(t, 30*time.Second, time.Since(start))
	})
}

// TestWatchStopsOnStopAndContextCancel checks both ways a client ends a watch.
// Diagram: step 1. client-go: watch.Interface.Stop; ListerWatcherWithContext.
func TestWatchStopsOnStopAndContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		ctx, cancel := context.WithCancel(t.Context())
		byCtx, err := s.Resource(configMaps).Watch(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		byStop, err := s.Resource(configMaps).Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)

		cancel()
		byStop.Stop()
		byStop.Stop() // idempotent

		expectClosed(t, byCtx)
		expectClosed(t, byStop)
		synctest.Wait()
		assert.Equal(t, 0, s.OpenWatches())
	})
}

// TestStreamingListSendsInitialEventsThenBookmark checks sendInitialEvents:
// ADDED per current object, a BOOKMARK annotated k8s.io/initial-events-end at
// the snapshot's resourceVersion, then live events.
// Diagram: step 1. client-go: the WatchList feature (Reflector.watchList).
func TestStreamingListSendsInitialEventsThenBookmark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		mustCreate(t, cms, configMap("default", "a"))
		mustCreate(t, cms, configMap("default", "b"))

		w, err := cms.Watch(t.Context(), metav1.ListOptions{SendInitialEvents: ptr(true),
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
		require.NoError(t, err)
		defer w.Stop()
		mustCreate(t, cms, configMap("default", "c"))
		_, errInvalid := cms.Watch(t.Context(), metav1.ListOptions{SendInitialEvents: ptr(true)})

		assert.Equal(t, "ADDED a@2", nameRV(next(t, w)))
		assert.Equal(t, "ADDED b@3", nameRV(next(t, w)))
		bm := next(t, w)
		require.Equal(t, watch.Bookmark, bm.Type)
		u := bm.Object.(*unstructured.Unstructured)
		assert.Equal(t, "3", u.GetResourceVersion())
		assert.Equal(t, map[string]string{metav1.InitialEventsAnnotationKey: "true"}, u.GetAnnotations())
		assert.Equal(t, "ADDED c@4", nameRV(next(t, w)))
		require.Error(t, errInvalid)
		assert.Contains(t, errInvalid.Error(), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	})
}

// TestSlowWatcherIsCutOffWithoutBlockingWriters checks that a watch nobody
// reads fills its buffer and is ended, while writes keep succeeding.
// Diagram: step 1. client-go: the apiserver terminates watchers that cannot keep up; the reflector re-watches.
func TestSlowWatcherIsCutOffWithoutBlockingWriters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{WatchBufferSize: 3})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)

		for i := range 10 {
			mustCreate(t, cms, configMap("default", string(rune('a'+i))))
		}

		assert.Equal(t, 1, s.Faults().WatchesCutOff)
		var got []watch.Event
		for ev := range w.ResultChan() {
			got = append(got, ev)
		}
		assert.LessOrEqual(t, len(got), 4, "the cut-off watch ends without the rest of the events")
		t.Logf("a watch that buffers 3 events and is never read: 10 creates all returned (resourceVersion now %d); the server cut the watch off (%d), which ended after %d events", s.CurrentResourceVersion(), s.Faults().WatchesCutOff, len(got))
		assert.Equal(t, uint64(11), s.CurrentResourceVersion())
	})
}

// TestCloseStopsEveryWatchGoroutine checks that Close ends all watches and
// their goroutines: synctest.Test fails if any goroutine of the bubble is
// left behind.
// Diagram: step 1. client-go: none (server lifecycle).
func TestCloseStopsEveryWatchGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fakeapi.New(fakeapi.Options{BookmarkInterval: time.Second})
		var ws []watch.Interface
		for range 5 {
			w, err := s.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{AllowWatchBookmarks: true, TimeoutSeconds: ptr(int64(3600))})
			require.NoError(t, err)
			ws = append(ws, w)
		}

		s.Close()

		for _, w := range ws {
			expectClosed(t, w)
		}
		_, err := s.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})
		assert.Error(t, err, "no watch after Close")
		_, err = s.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
		assert.Error(t, err, "no list after Close")
	})
}

// TestRefusedWatchReturnsANilInterface: a watch the server refuses returns
// its error and a nil watch.Interface, not a nil *watcher inside one, which
// a caller checking w != nil would call Stop on.
// Diagram: step 1. client-go: a ListerWatcher's Watch returns (nil, err).
func TestRefusedWatchReturnsANilInterface(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	for _, opts := range []metav1.ListOptions{
		{LabelSelector: "a in ("},
		{ShardSelector: "shardRange("},
		{ResourceVersion: "not-a-number"},
	} {
		w, err := cms.Watch(t.Context(), opts)
		assert.Error(t, err, "%+v", opts)
		assert.True(t, w == nil, "%+v: got a %T, want a nil watch.Interface", opts, w)
	}
}
