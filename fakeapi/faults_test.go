package fakeapi_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestCloseWatchesEndsEveryWatchCleanly checks the "apiserver restarted"
// fault: open watches end without an error; a re-watch from the last
// resourceVersion continues without loss.
// Diagram: step 1. client-go: Reflector re-watches after a clean end of stream, no relist.
func TestCloseWatchesEndsEveryWatchCleanly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		s := newServer(t, fakeapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		require.NoError(t, err)
		mustCreate(t, cms, configMap("default", "a"))
		assert.Equal(t, "ADDED a@2", nameRV(next(t, w)))

		s.CloseWatches()
		expectClosed(t, w)
		mustCreate(t, cms, configMap("default", "b"))
		again, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		defer again.Stop()

		assert.Equal(t, "ADDED b@3", nameRV(next(t, again)))
		assert.Equal(t, 1, s.Faults().WatchesClosed)
		assert.Contains(t, logs.String(), "fakeapi fault: close watches")
	})
}

// TestCompactMakesOldResourceVersionsExpire checks the "etcd compacted"
// fault: a re-watch from before the compaction gets ERROR 410, a watch from
// the current resourceVersion still works.
// Diagram: step 1. client-go: Reflector relists after "too old resource version".
func TestCompactMakesOldResourceVersionsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		mustCreate(t, cms, configMap("default", "a"))
		mustCreate(t, cms, configMap("default", "b"))

		s.Compact()
		old, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		cur, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "3"})
		require.NoError(t, err)
		defer cur.Stop()
		mustCreate(t, cms, configMap("default", "c"))

		ev := next(t, old)
		require.Equal(t, watch.Error, ev.Type)
		assert.True(t, apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)))
		expectClosed(t, old)
		assert.Equal(t, "ADDED c@4", nameRV(next(t, cur)))
		assert.Equal(t, 1, s.Faults().Compactions)
	})
}

// TestSilentWritesReachOnlyARelist checks the "dropped watch event" fault:
// the write takes a resourceVersion and shows in a list, but no watch sees it.
// Diagram: step 1. client-go: a relist's Replace turns a missed delete into a DeletedFinalStateUnknown.
func TestSilentWritesReachOnlyARelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		mustCreate(t, cms, configMap("default", "a"))
		w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		defer w.Stop()

		silent := s.SilentResource(configMaps).Namespace("default")
		require.NoError(t, silent.Delete(t.Context(), "a", metav1.DeleteOptions{}))
		mustCreate(t, silent, configMap("default", "b"))
		replay, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "2"})
		require.NoError(t, err)
		defer replay.Stop()
		list, err := cms.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)

		expectQuiet(t, w)
		expectQuiet(t, replay)
		assert.Equal(t, []string{"b"}, names(t, list))
		assert.Equal(t, "4", listRV(t, list))
		assert.Equal(t, 2, s.Faults().SilentWrites)
	})
}

// TestFailNextFailsTheNextRequests checks the injected request failures:
// exactly n calls of the verb fail with the chosen status, other verbs are
// unaffected, then calls succeed again.
// Diagram: step 1. client-go: Reflector backoff on list errors; 429 handling.
func TestFailNextFailsTheNextRequests(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	require.NoError(t, s.FailNext("list", 2, http.StatusServiceUnavailable))
	require.NoError(t, s.FailNext("watch", 1, http.StatusTooManyRequests))

	_, err1 := cms.List(context.Background(), metav1.ListOptions{})
	_, errGet := cms.Get(context.Background(), "missing", metav1.GetOptions{})
	_, err2 := cms.List(context.Background(), metav1.ListOptions{})
	_, err3 := cms.List(context.Background(), metav1.ListOptions{})
	_, errWatch := cms.Watch(context.Background(), metav1.ListOptions{})

	t.Log("FailNext(list, 2, 503) and FailNext(watch, 1, 429), then List, Get, List, List, Watch:")
	for _, err := range []error{err1, errGet, err2, err3, errWatch} {
		if err == nil {
			t.Log("   ok")
			continue
		}
		t.Logf("   %s: %v", apierrors.ReasonForError(err), err)
	}
	assert.True(t, apierrors.IsServiceUnavailable(err1), "got %v", err1)
	assert.True(t, apierrors.IsNotFound(errGet), "other verbs unaffected: %v", errGet)
	assert.True(t, apierrors.IsServiceUnavailable(err2), "got %v", err2)
	assert.NoError(t, err3)
	assert.True(t, apierrors.IsTooManyRequests(errWatch), "got %v", errWatch)
	assert.Equal(t, 3, s.Faults().FailedRequests)
	assert.Error(t, s.FailNext("list", 1, 418))
	assert.Error(t, s.FailNext("frobnicate", 1, 500))
}

// TestInjectWatchErrorDeliversErrorThenEnds checks the injected ERROR event:
// it arrives after already-queued events, then the watch ends.
// Diagram: step 1. client-go: Reflector's handling of watch.Error events.
func TestInjectWatchErrorDeliversErrorThenEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		mustCreate(t, cms, configMap("default", "a"))

		s.InjectWatchError(&metav1.Status{Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "injected"})

		assert.Equal(t, "ADDED a@2", nameRV(next(t, w)))
		ev := next(t, w)
		require.Equal(t, watch.Error, ev.Type)
		st := ev.Object.(*metav1.Status)
		assert.Equal(t, metav1.StatusFailure, st.Status)
		assert.Equal(t, "Status", st.Kind)
		assert.Equal(t, int32(http.StatusGone), st.Code)
		expectClosed(t, w)
		assert.Equal(t, 1, s.Faults().WatchErrorsInjected)
	})
}

// TestHangWatchesStopsDeliveryUntilResumed checks the "informer silently
// stopped" fault: while hung, nothing flows (no events, bookmarks or
// timeout) though the watch stays open; resuming delivers what was queued.
// Diagram: step 1. client-go: why informers resync and why watches have timeouts.
func TestHangWatchesStopsDeliveryUntilResumed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{BookmarkInterval: time.Second})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(t.Context(), metav1.ListOptions{AllowWatchBookmarks: true, TimeoutSeconds: ptr(int64(5))})
		require.NoError(t, err)

		s.HangWatches(true)
		mustCreate(t, cms, configMap("default", "a"))
		time.Sleep(time.Minute)
		expectQuiet(t, w)
		s.HangWatches(false)

		assert.Equal(t, "ADDED a@2", nameRV(next(t, w)))
		expectClosed(t, w) // the timeout that passed during the hang applies now
		assert.Equal(t, 1, s.Faults().Hangs)
	})
}

// TestHungWatchThatOverflowsIsCutOffWhenResumed checks that writes during a
// hang never block and that a watch whose buffer overflowed ends on resume.
// Diagram: step 1. client-go: the reflector must re-watch after a cut-off.
func TestHungWatchThatOverflowsIsCutOffWhenResumed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{WatchBufferSize: 2})
		cms := s.Resource(configMaps).Namespace("default")
		w, err := cms.Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)

		s.HangWatches(true)
		for _, n := range []string{"a", "b", "c"} {
			mustCreate(t, cms, configMap("default", n))
		}
		expectQuiet(t, w)
		s.HangWatches(false)

		for range w.ResultChan() {
		}
		assert.Equal(t, 1, s.Faults().WatchesCutOff)
	})
}

// TestSetLatencyDelaysEveryRequest checks the latency fault, and that a
// request whose context ends while waiting gives up.
// Diagram: step 1. client-go: request timeouts and context deadlines.
func TestSetLatencyDelaysEveryRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		s.SetLatency(2 * time.Second)

		start := time.Now()
		_, err := cms.List(t.Context(), metav1.ListOptions{})
		took := time.Since(start)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, errCtx := cms.List(ctx, metav1.ListOptions{})
		s.SetLatency(0)

		require.NoError(t, err)
		t.Logf("SetLatency(2s): a List took %v; a List with a 1s deadline: %v", took, errCtx)
		assert.Equal(t, 2*time.Second, took)
		assert.ErrorIs(t, errCtx, context.DeadlineExceeded)
		assert.Equal(t, 2, s.Faults().DelayedRequests)
	})
}
