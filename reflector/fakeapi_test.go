package reflector_test

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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// countingLW passes every call to a real ListerWatcher and records it, with
// the time it was made, as "list rv=..." / "watch rv=..." / "watchlist rv=...".
type countingLW struct {
	inner reflector.ListerWatcher

	mu    sync.Mutex    // guards calls and all
	calls []lwCall      // since the last take
	all   []lwCall      // every call
	made  chan struct{} // signalled (without blocking) after every call

	start time.Time            // when it was made: calls are logged relative to it
	logf  func(string, ...any) // if set, told of every call
}

type lwCall struct {
	what string
	at   time.Time
}

func newCountingLW(inner reflector.ListerWatcher) *countingLW {
	return &countingLW{inner: inner, made: make(chan struct{}, 1), start: time.Now()}
}

func (c *countingLW) record(what string) {
	c.mu.Lock()
	c.calls = append(c.calls, lwCall{what, time.Now()})
	c.all = append(c.all, lwCall{what, time.Now()})
	if c.logf != nil {
		c.logf("%8v  %s", time.Since(c.start).Round(time.Millisecond), strings.ToUpper(what[:strings.IndexByte(what, ' ')])+what[strings.IndexByte(what, ' '):])
	}
	c.mu.Unlock()
	select {
	case c.made <- struct{}{}:
	default:
	}
}

func (c *countingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	c.record(fmt.Sprintf("list rv=%q", opts.ResourceVersion))
	return c.inner.List(ctx, opts)
}

func (c *countingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil {
		c.record(fmt.Sprintf("watchlist rv=%q", opts.ResourceVersion))
	} else {
		c.record(fmt.Sprintf("watch rv=%q", opts.ResourceVersion))
	}
	return c.inner.Watch(ctx, opts)
}

// take returns the calls since the last take.
func (c *countingLW) take() []lwCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}

// count returns how many calls of verb ("list", "watch", "watchlist") were
// ever made.
func (c *countingLW) count(verb string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, call := range c.all {
		if strings.HasPrefix(call.what, verb+" ") {
			n++
		}
	}
	return n
}

// whats returns what each call was.
func whats(calls []lwCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.what
	}
	return out
}

// fakeEnv is a Reflector on a fakeapi Server's configmaps in namespace "ns",
// all inside the test's synctest bubble: the server's goroutines and timers
// (bookmarks, watch timeouts) run on the bubble's fake clock too.
type fakeEnv struct {
	srv   *fakeapi.Server
	cms   *fakeapi.ResourceClient
	lw    *countingLW
	store *recordingStore
	logs  *logBuffer
	errs  chan error
	r     *reflector.Reflector
	stop  func()
}

func startFake(t *testing.T, opts reflector.Options, objects ...string) *fakeEnv {
	t.Helper()
	return startFakeWith(t, opts, nil, objects...)
}

// startFakeWith is startFake with prepare run on the server after the objects
// are created and before the Reflector starts.
func startFakeWith(t *testing.T, opts reflector.Options, prepare func(srv *fakeapi.Server), objects ...string) *fakeEnv {
	t.Helper()
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	e := &fakeEnv{srv: srv, cms: srv.Resource(configMapsGVR).Namespace("ns"), store: &recordingStore{logf: t.Logf},
		logs: &logBuffer{}, errs: make(chan error, 100)}
	for _, name := range objects {
		e.create(t, name)
	}
	if prepare != nil {
		prepare(srv)
	}
	e.lw = newCountingLW(e.cms)
	e.lw.logf = t.Logf
	opts.Logger = e.logs.logger()
	opts.WatchErrorHandler = func(_ context.Context, _ *reflector.Reflector, err error) { e.errs <- err }
	e.r = reflector.New(e.lw, expectedConfigMap(), e.store, opts)
	reflector.SetRand(e.r, func() float64 { return 0 })
	reflector.Observe(e.r, func(from, to, cause string) { t.Logf("          %s -> %s (%s)", from, to, cause) })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.r.Run(ctx)
	}()
	e.stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(e.stop)
	waitBubble()
	return e
}

func (e *fakeEnv) create(t *testing.T, name string) {
	t.Helper()
	_, err := e.cms.Create(t.Context(), configMap("ns", name), metav1.CreateOptions{})
	require.NoError(t, err)
}

// rv is the server's current resourceVersion as a string.
func (e *fakeEnv) rv() string { return fmt.Sprint(e.srv.CurrentResourceVersion()) }

// advance lets d of bubble time pass (backoff delays run out), then settles.
func (e *fakeEnv) advance(t *testing.T, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	e.settle(t)
}

// settle waits until the bubble is idle and checks the Reflector's invariants.
func (e *fakeEnv) settle(t *testing.T) {
	t.Helper()
	waitBubble()
	require.NoError(t, e.r.CheckInvariants())
}

// The Reflector against fakeapi in-process: the initial list replaces the
// Store, then creates, updates and deletes arrive through one watch, and the
// Reflector's resourceVersion follows the server's.
// Diagram: step 1, 2. client-go: Reflector against a kube-apiserver
func TestFakeAPIListThenWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{}, "a", "b")
		listRV := e.rv()

		e.create(t, "c")
		_, err := e.cms.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		require.NoError(t, e.cms.Delete(t.Context(), "b", metav1.DeleteOptions{}))
		e.settle(t)

		assert.Equal(t, []string{"replace@3 [ns/a@2 ns/b@3]", "add ns/c@4", "update ns/a@5", "delete ns/b@6"}, e.store.take())
		assert.Equal(t, []string{`list rv="0"`, `watch rv="` + listRV + `"`}, whats(e.lw.take()))
		assert.Equal(t, e.rv(), e.r.LastSyncResourceVersion())
	})
}

// Bookmarks (fakeapi sends one a minute) move the Reflector's resourceVersion
// on while nothing in its resource changes — here other resources are being
// written — so a later re-watch starts from a recent version.
// Diagram: step 1. client-go: handleAnyWatch (watch.Bookmark)
func TestFakeAPIBookmarksAdvanceResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{}, "a")
		other := e.srv.Resource(configMapsGVR).Namespace("elsewhere")
		for _, name := range []string{"x", "y", "z"} {
			_, err := other.Create(t.Context(), configMap("elsewhere", name), metav1.CreateOptions{})
			require.NoError(t, err)
		}
		e.settle(t)
		assert.Equal(t, "2", e.r.LastSyncResourceVersion())

		time.Sleep(time.Minute)
		e.settle(t)

		assert.Equal(t, "5", e.r.LastSyncResourceVersion())
		assert.Equal(t, []string{"replace@2 [ns/a@2]"}, e.store.take(), "a bookmark changes nothing in the Store")
	})
}

// fakeapi's CloseWatches ends every watch cleanly, as an apiserver restart
// does: the Reflector re-watches at once from its last resourceVersion, and
// does not relist.
// Diagram: step 1. client-go: Reflector.watch (clean end)
func TestFakeAPIClosedWatchRewatchesWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{}, "a")
		e.create(t, "b")
		e.settle(t)
		e.lw.take()

		e.srv.CloseWatches()
		e.settle(t)
		e.create(t, "c")
		e.settle(t)

		assert.Equal(t, []string{`watch rv="3"`}, whats(e.lw.take()))
		assert.Equal(t, []string{"replace@2 [ns/a@2]", "add ns/b@3", "add ns/c@4"}, e.store.take())
	})
}

// After fakeapi compacts its history, the re-watch from the old
// resourceVersion gets 410 Expired: the Reflector backs off and relists at
// its last resourceVersion. Only that relist reveals a deletion no watch ever
// reported (a silent write).
// Diagram: step 1, 2. client-go: Reflector.watch (isExpiredError), Reflector.list
func TestFakeAPICompactionForcesARelistThatRevealsSilentDeletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{}, "a", "b")
		time.Sleep(2 * time.Second) // a watch younger than 1s without events would count as "very short"
		require.NoError(t, e.srv.SilentResource(configMapsGVR).Namespace("ns").Delete(t.Context(), "a", metav1.DeleteOptions{}))
		e.lw.take()

		e.srv.Compact()
		e.srv.CloseWatches()
		e.advance(t, time.Second)

		calls := e.lw.take()
		require.Equal(t, []string{`watch rv="3"`, `list rv="3"`, `watch rv="4"`}, whats(calls))
		assert.Equal(t, 800*time.Millisecond, calls[1].at.Sub(calls[0].at), "backoff before the relist")
		assert.Equal(t, []string{"replace@3 [ns/a@2 ns/b@3]", "replace@4 [ns/b@3]"}, e.store.take())
		assert.Contains(t, e.logs.String(), "too old resource version")
	})
}

// 429 when opening a watch backs off (800ms, then 1.6s) and re-watches, with
// no relist; the changes made meanwhile arrive from the watch's history.
// Diagram: step 1. client-go: isWatchErrorRetriable
func TestFakeAPIThrottledWatchBacksOffWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{}, "a")
		e.create(t, "b")
		e.settle(t)
		e.lw.take()
		require.NoError(t, e.srv.FailNext("watch", 2, http.StatusTooManyRequests))

		e.srv.CloseWatches()
		e.create(t, "c")
		e.advance(t, 3*time.Second)

		calls := e.lw.take()
		require.Equal(t, []string{`watch rv="3"`, `watch rv="3"`, `watch rv="3"`}, whats(calls))
		assert.Equal(t, 800*time.Millisecond, calls[1].at.Sub(calls[0].at))
		assert.Equal(t, 1600*time.Millisecond, calls[2].at.Sub(calls[1].at))
		assert.Equal(t, []string{"replace@2 [ns/a@2]", "add ns/b@3", "add ns/c@4"}, e.store.take())
		assert.Equal(t, 1, e.lw.count("list"), "only the initial list")
		assert.Empty(t, e.errs)
	})
}

// Failing lists go to the WatchErrorHandler and are retried after 800ms, then
// 1.6s.
// Diagram: step 1. client-go: Reflector.RunWithContext (backoff)
func TestFakeAPIFailingListsBackOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFakeFailing(t, "list", 2, http.StatusServiceUnavailable, "a")

		calls := e.lw.take()
		require.Equal(t, []string{`list rv="0"`, `list rv="0"`, `list rv="0"`, `watch rv="2"`}, whats(calls))
		assert.Equal(t, 800*time.Millisecond, calls[1].at.Sub(calls[0].at))
		assert.Equal(t, 1600*time.Millisecond, calls[2].at.Sub(calls[1].at))
		assert.Len(t, e.errs, 2)
		assert.True(t, apierrors.IsServiceUnavailable(<-e.errs))
		assert.Equal(t, []string{"replace@2 [ns/a@2]"}, e.store.take())
	})
}

// startFakeFailing is startFake with the server's first n requests of verb
// failing with code.
func startFakeFailing(t *testing.T, verb string, n, code int, objects ...string) *fakeEnv {
	t.Helper()
	e := startFakeWith(t, reflector.Options{}, func(srv *fakeapi.Server) {
		require.NoError(t, srv.FailNext(verb, n, code))
	}, objects...)
	e.advance(t, time.Minute)
	return e
}

// An ERROR event injected into the open watch: 410 relists, 429 re-watches
// without relisting, 500 relists; every retry after the 800ms backoff.
// Diagram: step 1. client-go: Reflector.watch (error taxonomy)
func TestFakeAPIInjectedWatchErrors(t *testing.T) {
	cases := []struct {
		status *metav1.Status
		want   []string
	}{
		{&apierrors.NewResourceExpired("too old resource version").ErrStatus, []string{`list rv="2"`, `watch rv="2"`}},
		{&apierrors.NewTooManyRequests("slow down", 1).ErrStatus, []string{`watch rv="2"`}},
		{&apierrors.NewInternalError(fmt.Errorf("boom")).ErrStatus, []string{`list rv="2"`, `watch rv="2"`}},
	}
	for _, tc := range cases {
		t.Run(string(tc.status.Reason), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := startFake(t, reflector.Options{}, "a")
				e.lw.take()
				before := time.Now()

				e.srv.InjectWatchError(tc.status)
				e.advance(t, time.Second)

				calls := e.lw.take()
				require.Equal(t, tc.want, whats(calls))
				assert.Equal(t, 800*time.Millisecond, calls[0].at.Sub(before))
				assert.Empty(t, e.errs)
			})
		})
	}
}

// A hung watch — open, but nothing flows, not even bookmarks — is the
// "informer silently stopped" failure. After IdleTimeout (3 minutes) the
// Reflector gives up on it and opens a new one from its last resourceVersion
// (no relist); once the server delivers again, the missed change arrives.
// With the idle timeout off, the Reflector waits on the dead watch for as
// long as the hang lasts.
// Diagram: step 1. client-go: none (kube-rs watcher idle timeout)
func TestFakeAPIHungWatchIsReplacedAfterIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{}, "a")
		e.lw.take()
		before := time.Now()

		e.srv.HangWatches(true)
		e.create(t, "b")
		time.Sleep(reflector.DefaultIdleTimeout)
		e.settle(t)
		calls := e.lw.take()
		e.srv.HangWatches(false)
		e.settle(t)

		assert.Equal(t, []string{`watch rv="2"`}, whats(calls))
		assert.Equal(t, reflector.DefaultIdleTimeout, calls[0].at.Sub(before))
		assert.Equal(t, []string{"replace@2 [ns/a@2]", "add ns/b@3"}, e.store.take())
	})
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{IdleTimeout: -1}, "a")
		e.lw.take()

		e.srv.HangWatches(true)
		e.create(t, "b")
		time.Sleep(time.Hour)
		e.settle(t)

		assert.Empty(t, e.lw.take(), "no re-watch: the Reflector trusts the dead watch")
		assert.Equal(t, []string{"replace@2 [ns/a@2]"}, e.store.take(), "and misses the change")
		e.srv.HangWatches(false)
	})
}

// A streaming list against fakeapi: one watch with sendInitialEvents brings
// the initial state and then the changes; the Reflector never calls List.
// Diagram: step 1, 2. client-go: Reflector.watchList
func TestFakeAPIStreamingList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{UseWatchList: true}, "a", "b")

		e.create(t, "c")
		e.settle(t)

		assert.Equal(t, []string{`watchlist rv=""`}, whats(e.lw.take()))
		assert.Equal(t, []string{"replace@3 [ns/a@2 ns/b@3]", "add ns/c@4"}, e.store.take())
		assert.Equal(t, "4", e.r.LastSyncResourceVersion())
	})
}

// A page size is ignored by a list at "0" (the server answers it whole from
// its cache, as fakeapi does like the real one), but a relist at a specific
// resourceVersion with a limit is read in pages that follow the continue
// tokens, and the Store is replaced once with every object.
// Diagram: step 1. client-go: tools/pager.ListPager, Reflector.WatchListPageSize
func TestFakeAPIPaginatedRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startFake(t, reflector.Options{PageSize: 2}, "a", "b", "c", "d", "e")
		assert.Equal(t, []string{`list rv="0"`, `watch rv="6"`}, whats(e.lw.take()), "the list at \"0\" came whole")

		e.srv.InjectWatchError(nil) // 500: relist
		e.advance(t, time.Second)

		assert.Equal(t, []string{`list rv="6"`, `list rv=""`, `list rv=""`, `watch rv="6"`}, whats(e.lw.take()))
		assert.Equal(t, []string{"replace@6 [ns/a@2 ns/b@3 ns/c@4 ns/d@5 ns/e@6]", "replace@6 [ns/a@2 ns/b@3 ns/c@4 ns/d@5 ns/e@6]"}, e.store.take())
	})
}
