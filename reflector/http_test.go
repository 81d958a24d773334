package reflector_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// overHTTP serves srv on a local socket and returns an HTTP client for it.
func overHTTP(t *testing.T, srv *fakeapi.Server) *client.Client {
	t.Helper()
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	cfg, err := client.ConfigFromURL(ts.URL)
	require.NoError(t, err)
	cfg.Logger = discard()
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	return c
}

// waitFor waits until cond holds, re-checking after every call, and fails
// the test after d.
func (c *countingLW) waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-c.made:
		case <-deadline.C:
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("timed out after %v waiting for %s; calls: %v", d, what, whats(c.all))
		}
	}
}

// The real-cluster scenario against fakeapi over HTTP, through the client
// package: list, a created ConfigMap seen through the watch, its deletion, a
// clean stop.
// Diagram: step 1, 2. client-go: Reflector over a REST client
func TestOverHTTPListWatchCreateDelete(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	t.Cleanup(srv.Close)
	c := overHTTP(t, srv)

	listWatchCreateDelete(t, c.Resource(configMapsGVR).Namespace("default"), "default")
}

// The error taxonomy over a real socket: fakeapi's faults reach the Reflector
// through the HTTP wire format and the client's watch decoder, and the
// Reflector re-watches or relists exactly as in-process. This is real time,
// so every step waits with a deadline, and the backoff is short.
// Diagram: step 1. client-go: Reflector.watch, Reflector.list (over HTTP)
func TestOverHTTPFaultsRewatchOrRelist(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{BookmarkInterval: 100 * time.Millisecond})
	t.Cleanup(srv.Close)
	c := overHTTP(t, srv)
	inproc := srv.Resource(configMapsGVR).Namespace("default")
	// A first object, so that the list's resourceVersion is not "0" (a fresh
	// server's): a watch from "0" would start from the current state and
	// could never be told its resourceVersion is too old.
	_, err := inproc.Create(t.Context(), configMap("default", "seed"), metav1.CreateOptions{})
	require.NoError(t, err)
	lw := newCountingLW(c.Resource(configMapsGVR).Namespace("default"))
	store := newWaitStore()
	const wait = 20 * time.Second
	_, stop := runReflector(t, lw, store, reflector.Options{
		Backoff:     reflector.Backoff{Initial: 10 * time.Millisecond, Factor: 1},
		IdleTimeout: time.Second,
	})
	create := func(name string) {
		t.Helper()
		_, err := inproc.Create(t.Context(), configMap("default", name), metav1.CreateOptions{})
		require.NoError(t, err)
		store.waitFor(t, wait, "add "+name, func() bool { return store.has("default/" + name) })
	}
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })
	create("a")

	// A clean end of every watch: re-watch, no relist.
	srv.CloseWatches()
	create("b")
	assert.Equal(t, 1, lw.count("list"), "CloseWatches: no relist")

	// A compaction: the re-watch gets 410 and the Reflector relists; the
	// relist reveals a deletion no watch reported.
	require.NoError(t, srv.SilentResource(configMapsGVR).Namespace("default").Delete(t.Context(), "a", metav1.DeleteOptions{}))
	srv.Compact()
	srv.CloseWatches()
	store.waitFor(t, wait, "the relist", func() bool { return store.countPrefix("replace@") == 2 })
	assert.False(t, store.has("default/a"), "the relist dropped the silently deleted object")
	assert.Equal(t, 2, lw.count("list"))

	// 429 when re-watching: back off and re-watch, no relist.
	create("c")
	require.NoError(t, srv.FailNext("watch", 2, http.StatusTooManyRequests))
	watches := lw.count("watch")
	srv.CloseWatches()
	create("d")
	assert.GreaterOrEqual(t, lw.count("watch"), watches+3, "two refused watches, then one that works")
	assert.Equal(t, 2, lw.count("list"), "429: no relist")

	// An injected 500: relist.
	srv.InjectWatchError(&apierrors.NewInternalError(assert.AnError).ErrStatus)
	store.waitFor(t, wait, "the relist after a 500", func() bool { return store.countPrefix("replace@") == 3 })

	// A hung watch: re-opened after the idle timeout, without a relist; the
	// change made during the hang arrives once the server delivers again.
	create("f") // the watch after the relist is open and delivering
	watches = lw.count("watch")
	hangStart := time.Now()
	srv.HangWatches(true)
	_, err = inproc.Create(t.Context(), configMap("default", "e"), metav1.CreateOptions{})
	require.NoError(t, err)
	lw.waitFor(t, wait, "a re-watch after the idle timeout", func() bool { return lw.count("watch") > watches })
	assert.GreaterOrEqual(t, time.Since(hangStart), 800*time.Millisecond, "the re-watch came from the 1s idle timeout")
	srv.HangWatches(false)
	store.waitFor(t, wait, "add e", func() bool { return store.has("default/e") })
	assert.Equal(t, 3, store.countPrefix("replace@"), "the hang cost no relist")

	stop()
}

// When the API server goes away, watches are refused with "connection
// refused": the Reflector backs off and re-watches, without relisting, until
// the server is back; then it resumes from its last resourceVersion and sees
// the change made meanwhile.
// Diagram: step 1. client-go: isWatchErrorRetriable (utilnet.IsConnectionRefused)
func TestOverHTTPConnectionRefusedRewatchesWithoutRelist(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{BookmarkInterval: 100 * time.Millisecond})
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *http.Server {
		hs := &http.Server{Handler: srv.Handler()}
		go func() { _ = hs.Serve(ln) }()
		return hs
	}
	hs := serve(ln)
	cfg, err := client.ConfigFromURL("http://" + addr)
	require.NoError(t, err)
	cfg.Logger = discard()
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	inproc := srv.Resource(configMapsGVR).Namespace("default")
	lw := newCountingLW(c.Resource(configMapsGVR).Namespace("default"))
	store := newWaitStore()
	const wait = 20 * time.Second
	_, stop := runReflector(t, lw, store, reflector.Options{
		Backoff: reflector.Backoff{Initial: 10 * time.Millisecond, Factor: 1},
	})
	// Create a only once the first watch is being opened, so that a reaches
	// the store through the watch and the watch is open when the server goes.
	lw.waitFor(t, wait, "the first watch", func() bool { return lw.count("watch") >= 1 })
	_, err = inproc.Create(t.Context(), configMap("default", "a"), metav1.CreateOptions{})
	require.NoError(t, err)
	store.waitFor(t, wait, "add a", func() bool { return store.has("default/a") })

	// The server goes away: no listener, every connection closed. (A graceful
	// Shutdown would wait forever for a re-watch that slipped in before the
	// listener closed.) A re-watch caught on a closing connection sees EOF; the
	// client sends it again a second later, and that one is refused.
	require.NoError(t, hs.Close())
	watches := lw.count("watch")
	lw.waitFor(t, wait, "refused re-watches", func() bool { return lw.count("watch") >= watches+3 })
	_, err = inproc.Create(t.Context(), configMap("default", "b"), metav1.CreateOptions{})
	require.NoError(t, err)

	// It comes back on the same address.
	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	hs = serve(ln)
	t.Cleanup(func() { _ = hs.Close() })
	store.waitFor(t, wait, "add b", func() bool { return store.has("default/b") })
	stop()

	assert.Equal(t, 1, lw.count("list"), "connection refused never caused a relist")
	assert.Equal(t, 1, store.countPrefix("replace@"))
}
