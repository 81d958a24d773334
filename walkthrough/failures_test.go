package walkthrough

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// These tests complete docs/failure-modes.md: each shows, from the
// informer's side, a fault of fakeapi that the reflector's and informer's
// own tests do not drive through fakeapi.

// errorLog collects what a watch error handler is told.
type errorLog struct {
	mu   sync.Mutex // guards errs
	errs []error
}

func (l *errorLog) handler(_ context.Context, _ *reflector.Reflector, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

func (l *errorLog) all() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...)
}

// watchedInformer runs a synced informer over ns/a with a counting
// ListerWatcher, an error log and a recorder.
func watchedInformer(t *testing.T, srv *fakeapi.Server) (*countingLW, *errorLog, *recorder, informer.SharedIndexInformer) {
	t.Helper()
	lw := &countingLW{inner: srv.Resource(cmGVR).Namespace("ns")}
	inf := informer.NewSharedIndexInformer(lw, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
	errs := &errorLog{}
	require.NoError(t, inf.SetWatchErrorHandler(errs.handler))
	rec := &recorder{}
	startInformer(t, inf, rec)
	rec.takeLines()
	return lw, errs, rec, inf
}

// TestFailureWatchThatCannotBeOpened fails the re-watch that follows a
// clean end of the watch (FailNext("watch", 1, code)). 429 means "the
// server is busy": back off and watch again, no relist, no error reported.
// Any other code — 410, 500, 503, 504 — means the Reflector cannot tell
// what it missed: the error goes to the watch error handler, and after a
// backoff of 0.8-1.6s it relists at its last resourceVersion. The handler
// sees that relist as an update whose old and new resourceVersions are equal.
//
// Diagram: step 1. client-go: Reflector.watch (isWatchErrorRetriable), Reflector.RunWithContext.
func TestFailureWatchThatCannotBeOpened(t *testing.T) {
	for _, code := range []int{http.StatusTooManyRequests, http.StatusGone, http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t, fakeapi.Options{})
				a := create(t, srv.Resource(cmGVR).Namespace("ns"), configMap("ns", "a", "1"))
				lw, errs, rec, _ := watchedInformer(t, srv)
				time.Sleep(5 * time.Second)
				before := len(lw.all())

				require.NoError(t, srv.FailNext("watch", 1, code))
				srv.CloseWatches()
				time.Sleep(2 * time.Second)
				synctest.Wait()

				calls := lw.all()[before:]
				t.Logf("the watch ends and the re-watch is refused with %d: then %s; error handler told %d time(s)",
					code, strings.Join(lw.whats()[before:], ", "), len(errs.all()))
				if len(calls) >= 2 {
					t.Logf("   the next request came %v after the refusal", calls[1].at.Sub(calls[0].at).Round(time.Millisecond))
				}
				require.GreaterOrEqual(t, len(calls), 2)
				assert.Equal(t, `watch rv="2"`, calls[0].what, "the re-watch, refused")
				delay := calls[1].at.Sub(calls[0].at)
				assert.True(t, delay >= 800*time.Millisecond && delay <= 1600*time.Millisecond, "backoff %v", delay)
				if code == http.StatusTooManyRequests {
					assert.Equal(t, []string{`watch rv="2"`, `watch rv="2"`}, lw.whats()[before:], "watch again, no relist")
					assert.Empty(t, errs.all())
					assert.Empty(t, rec.takeLines())
					return
				}
				assert.Equal(t, []string{`watch rv="2"`, `list rv="2"`, `watch rv="2"`}, lw.whats()[before:], "relist")
				require.Len(t, errs.all(), 1)
				var status apierrors.APIStatus
				require.ErrorAs(t, errs.all()[0], &status, "the error handler was told")
				assert.Equal(t, int32(code), status.Status().Code)
				assert.Equal(t, []string{"update ns/a@" + rvOf(a) + "->" + rvOf(a)}, rec.takeLines())
			})
		})
	}
}

// TestFailureExpiredListIsRetriedAtOnceFromEmpty makes the first list fail
// with 410 Expired (FailNext("list", 1, 410)): the resourceVersion asked for
// ("0") is not available. The Reflector does not back off: it lists again at
// once at "", the newest state, which always works, and syncs.
//
// Diagram: step 1. client-go: Reflector.list (isLastSyncResourceVersionUnavailable).
func TestFailureExpiredListIsRetriedAtOnceFromEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		create(t, srv.Resource(cmGVR).Namespace("ns"), configMap("ns", "a", "1"))
		require.NoError(t, srv.FailNext("list", 1, http.StatusGone))
		start := time.Now()

		lw, errs, _, inf := watchedInformer(t, srv)
		t.Logf("the first list at \"0\" fails with 410; the Reflector: %s, after %v, error handler told %d time(s)",
			strings.Join(lw.whats(), ", "), time.Since(start), len(errs.all()))

		assert.Equal(t, []string{`list rv="0"`, `list rv=""`, `watch rv="2"`}, lw.whats())
		assert.Equal(t, time.Duration(0), time.Since(start), "no backoff")
		assert.Empty(t, errs.all(), "nothing worth reporting")
		mustGet(t, inf, "ns/a")
	})
}

// TestFailureCutOffWatchRewatchesFromItsLastResourceVersion gives every watch
// a buffer of two events (Options.WatchBufferSize) and stalls delivery while
// five objects are created: the server cuts the watch off, as a real API
// server cuts off a watcher that cannot keep up, instead of ever blocking its
// writers. The Reflector sees the watch end, re-watches from the last
// resourceVersion it got, and the history replays what it missed: every
// object arrives, without a relist.
//
// Diagram: step 1. client-go: Reflector.watch (a watch that ends cleanly); the apiserver's cacher.
func TestFailureCutOffWatchRewatchesFromItsLastResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{WatchBufferSize: 2})
		cms := srv.Resource(cmGVR).Namespace("ns")
		create(t, cms, configMap("ns", "a", "1"))
		lw, errs, rec, inf := watchedInformer(t, srv)
		time.Sleep(5 * time.Second)

		srv.HangWatches(true)
		for _, name := range []string{"b", "c", "d", "e", "f"} {
			create(t, cms, configMap("ns", name, "1"))
		}
		srv.HangWatches(false)
		synctest.Wait()

		t.Log("1. Every watch may buffer two events; delivery stalls while five objects are created")
		t.Logf("   the server cut off %d watch; the Reflector: %s", srv.Faults().WatchesCutOff, strings.Join(lw.whats(), ", "))
		t.Logf("   the cache holds %d objects; errors reported: %d", len(inf.GetStore().List()), len(errs.all()))
		assert.Equal(t, 1, srv.Faults().WatchesCutOff)
		assert.Equal(t, 1, lw.count("list"), "no relist")
		assert.Equal(t, 2, lw.count("watch"), "one re-watch")
		assert.Len(t, rec.takeLines(), 5, "every create reached the handler")
		assert.Len(t, inf.GetStore().List(), 6)
		assert.Empty(t, errs.all())
	})
}

// TestFailureSlowServerDelaysTheInitialSync makes every request wait three
// seconds (SetLatency). The informer syncs when its list returns, three
// seconds after it started; a caller that waits two seconds for the cache is
// told it has not synced.
//
// Diagram: step 1. client-go: WaitForCacheSync against a slow apiserver.
func TestFailureSlowServerDelaysTheInitialSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		create(t, srv.Resource(cmGVR).Namespace("ns"), configMap("ns", "a", "1"))
		srv.SetLatency(3 * time.Second)
		inf := informer.NewSharedIndexInformer(srv.Resource(cmGVR).Namespace("ns"), exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		runInformer(t, inf)
		start := time.Now()

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		early := informer.WaitForCacheSync(ctx, inf)
		t.Logf("every request takes 3s; WaitForCacheSync with a 2s deadline returns %v", early)
		assert.False(t, early, "not within 2s")
		assert.True(t, informer.WaitForCacheSync(context.Background(), inf))
		t.Logf("   without a deadline it returns true %v after the informer started: when the list came back", time.Since(start))
		assert.Equal(t, 3*time.Second, time.Since(start), "synced when the list came back")
	})
}

// TestFailureServerGoneLeavesTheCacheAsItWas closes the server: the watch
// ends, and from then on every request fails with 503. The Reflector keeps
// trying, backing off, and tells the error handler each time; the informer
// goes on serving its cache as it was — still synced, still readable, every
// minute more out of date. Nothing in the cache says so: only the errors do.
//
// Diagram: steps 1, 9. client-go: Reflector.RunWithContext (backoff), the cache's last known state.
func TestFailureServerGoneLeavesTheCacheAsItWas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		create(t, srv.Resource(cmGVR).Namespace("ns"), configMap("ns", "a", "1"))
		lw, errs, rec, inf := watchedInformer(t, srv)
		time.Sleep(5 * time.Second)

		srv.Close()
		time.Sleep(time.Minute)
		synctest.Wait()

		failures := errs.all()
		t.Log("the server is closed; a minute passes")
		t.Logf("   HasSynced=%v, cached objects: %d; the error handler was told %d times, last: %v",
			inf.HasSynced(), len(inf.GetStore().List()), len(failures), lastErr(failures))
		assert.True(t, inf.HasSynced(), "still synced")
		mustGet(t, inf, "ns/a")
		assert.Empty(t, rec.takeLines(), "handlers hear nothing")
		assert.GreaterOrEqual(t, len(failures), 3, "every attempt failed and was reported")
		for _, err := range failures {
			assert.True(t, apierrors.IsServiceUnavailable(err), "%v", err)
		}
		assert.Equal(t, len(failures), lw.count("list")+lw.count("watch")-2, "one report per failed request")
	})
}

// TestFailureFailedWriteIsRetriedWithBackoff makes the API server refuse a
// controller's write twice with 500 (FailNext("update", 2, 500)). The
// Reflector never writes, so this fault reaches the Reconciler instead: it
// returns the error, the Request comes back after 5ms, then 10ms, and the
// third attempt succeeds.
//
// Diagram: steps 8, 9. client-go: controller-runtime reconcileHandler (AddRateLimited on error).
func TestFailureFailedWriteIsRetriedWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		create(t, cms, configMap("ns", "a", "1"))
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), cmGVR.GroupResource())
		var mu sync.Mutex
		var attempts []time.Time
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			mu.Lock()
			attempts = append(attempts, time.Now())
			mu.Unlock()
			cm, err := lister.Namespace(req.Namespace).Get(req.Name)
			if err != nil {
				return controller.Result{}, err
			}
			if value(cm) == "done" {
				return controller.Result{}, nil
			}
			next := cm.DeepCopy()
			next.Object["data"] = map[string]any{"value": "done"}
			_, err = cms.Update(ctx, next, metav1.UpdateOptions{})
			return controller.Result{}, err
		})
		c, err := controller.New("writer", r, controller.Options{Logger: quiet})
		require.NoError(t, err)
		require.NoError(t, c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{})))
		require.NoError(t, srv.FailNext("update", 2, http.StatusInternalServerError))
		runInformer(t, inf)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Start(ctx) }()
		defer func() {
			cancel()
			assert.NoError(t, <-done)
		}()

		time.Sleep(time.Second)
		synctest.Wait()

		mu.Lock()
		defer mu.Unlock()
		t.Log("the API server refuses the Reconciler's update twice with 500")
		for i := 1; i < len(attempts); i++ {
			t.Logf("   Reconcile %d ran %v after the one before", i+1, attempts[i].Sub(attempts[i-1]))
		}
		t.Logf("   Counts: %+v", c.Counts())
		require.Len(t, attempts, 4, "two failures, the write that works, and the Reconcile its own event brings")
		assert.Equal(t, 5*time.Millisecond, attempts[1].Sub(attempts[0]))
		assert.Equal(t, 10*time.Millisecond, attempts[2].Sub(attempts[1]))
		counts := c.Counts()
		assert.Equal(t, int64(2), counts.Errors)
		assert.Equal(t, int64(2), counts.Success)
		got, err := cms.Get(context.Background(), "a", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "done", value(got))
	})
}

// lastErr returns the last of errs, or nil.
func lastErr(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[len(errs)-1]
}
