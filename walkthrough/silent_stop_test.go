package walkthrough

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// TestConfusionInformerSilentlyStops holds every watch still (fakeapi
// HangWatches): the connection stays open but nothing flows, not even the
// bookmarks the server sends every minute — what a half-open TCP connection
// behind a NAT or load balancer looks like. Then an object is created.
//
// With the idle timeout off (client-go's behaviour), an hour later the
// informer still says it has synced, no error was reported, no new watch was
// opened, and the cache does not have the object: it stopped, silently.
//
// With the default IdleTimeout (3 minutes, three missed bookmarks), the
// Reflector gives up on the silent watch after exactly three minutes and
// opens a new one from its last resourceVersion — no relist — and the
// object arrives as soon as the server delivers again.
//
// Diagram: step 1. client-go: none (kube-rs watcher's idle timeout); client-go trusts the connection until the watch timeout.
func TestConfusionInformerSilentlyStops(t *testing.T) {
	t.Run("no idle timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv, lw, inf := hangingInformer(t, reflector.Options{IdleTimeout: -1})

			srv.HangWatches(true)
			create(t, srv.Resource(cmGVR).Namespace("ns"), configMap("ns", "b", "1"))
			time.Sleep(time.Hour)
			synctest.Wait()

			_, has, _ := inf.GetStore().GetByKey("ns/b")
			t.Log("1. Every watch hangs (open, nothing flows, not even bookmarks); ns/b is created; an hour passes")
			t.Logf("   no idle timeout (as in client-go): HasSynced=%v, watches opened: %d, cache has ns/b: %v", inf.HasSynced(), lw.count("watch"), has)
			assert.True(t, inf.HasSynced(), "it looks healthy")
			assert.Equal(t, 1, lw.count("watch"), "nothing noticed the dead watch")
			_, exists, err := inf.GetStore().GetByKey("ns/b")
			require.NoError(t, err)
			assert.False(t, exists, "an hour later the cache still lacks the object")
		})
	})

	t.Run("default idle timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv, lw, inf := hangingInformer(t, reflector.Options{})
			hungAt := time.Now()

			srv.HangWatches(true)
			create(t, srv.Resource(cmGVR).Namespace("ns"), configMap("ns", "b", "1"))
			time.Sleep(reflector.DefaultIdleTimeout)
			synctest.Wait()

			calls := lw.all()
			t.Logf("2. The same with the default IdleTimeout (%v): %s", reflector.DefaultIdleTimeout, strings.Join(lw.whats(), ", "))
			if len(calls) > 0 {
				t.Logf("   the second watch was opened %v after the watch went silent, without a relist", calls[len(calls)-1].at.Sub(hungAt))
			}
			require.Equal(t, 2, lw.count("watch"), "a second watch was opened")
			assert.Equal(t, reflector.DefaultIdleTimeout, calls[len(calls)-1].at.Sub(hungAt), "after exactly IdleTimeout")
			assert.Equal(t, []string{`list rv="0"`, `watch rv="2"`, `watch rv="2"`}, lw.whats(), "from the last resourceVersion, without a relist")

			srv.HangWatches(false)
			synctest.Wait()
			mustGet(t, inf, "ns/b")
			t.Log("   the server delivers again, and ns/b reaches the cache")
		})
	})
}

// hangingInformer runs a synced informer with the given Reflector options on
// a server holding ns/a, and returns the server, the counting ListerWatcher
// and the informer.
func hangingInformer(t *testing.T, opts reflector.Options) (*fakeapi.Server, *countingLW, informer.SharedIndexInformer) {
	t.Helper()
	srv := newServer(t, fakeapi.Options{})
	cms := srv.Resource(cmGVR).Namespace("ns")
	create(t, cms, configMap("ns", "a", "1"))
	lw := &countingLW{inner: cms}
	inf := informer.NewSharedIndexInformer(lw, exampleConfigMap(), 0, nil,
		informer.WithLogger(quiet), informer.WithReflectorOptions(opts))
	startInformer(t, inf)
	return srv, lw, inf
}
