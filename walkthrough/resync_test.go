package walkthrough

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionResyncIsNotARelist runs an informer with a one-minute resync
// period for three and a half minutes. Every minute the handler gets
// OnUpdate(x, x) for every cached object — same resourceVersion on both
// sides — yet the server is asked for exactly one List, the initial one:
// a resync re-delivers what the cache already holds and reads nothing. Then
// an injected 410 forces a relist, and only that is a second List.
//
// Diagram: steps 1-6. client-go: Reflector.resyncChan, DeltaFIFO.Resync (Sync deltas) vs Reflector.list.
func TestConfusionResyncIsNotARelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		a := create(t, cms, configMap("ns", "a", "1"))
		b := create(t, cms, configMap("ns", "b", "1"))
		lw := &countingLW{inner: cms}
		inf := informer.NewSharedIndexInformer(lw, exampleConfigMap(), time.Minute, nil, informer.WithLogger(quiet))
		rec := &recorder{}
		startInformer(t, inf, rec)
		t.Logf("1. The informer starts with a one-minute resync period: %s", strings.Join(lw.whats(), ", "))
		t.Logf("   its handler saw the initial list: %s", strings.Join(rec.takeLines(), ", "))
		noops := []string{
			"update ns/a@" + rvOf(a) + "->" + rvOf(a),
			"update ns/b@" + rvOf(b) + "->" + rvOf(b),
		}

		for minute := 1; minute <= 3; minute++ {
			time.Sleep(time.Minute)
			synctest.Wait()

			lines := rec.takeLines()
			t.Logf("2.%d minute %d, a resync: %s; List requests so far: %d", minute, minute, strings.Join(lines, ", "), lw.count("list"))
			assert.Equal(t, noops, lines, "minute %d: one resync, every object re-delivered unchanged", minute)
			assert.Equal(t, 1, lw.count("list"), "minute %d: a resync does not list", minute)
		}
		assert.Equal(t, 1, lw.count("watch"), "and the one watch kept running")
		t.Log("   a resync re-delivers the cached objects (old and new are the same resourceVersion) and reads nothing")

		calls := len(lw.whats())
		srv.InjectWatchError(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
		time.Sleep(2 * time.Second) // the Reflector's backoff before a relist is 0.8-1.6s
		synctest.Wait()

		t.Logf("3. A 410 Gone ends the watch; the Reflector relists: %s", strings.Join(lw.whats()[calls:], ", "))
		lines := rec.takeLines()
		t.Logf("   the relist found nothing new: %s; List requests in all: %d", strings.Join(lines, ", "), lw.count("list"))
		assert.Equal(t, 2, lw.count("list"), "a relist is a List")
		assert.Equal(t, noops, lines, "the relist found nothing new: same resourceVersions again")
		require.Equal(t, rvOf(a), rvOf(mustGet(t, inf, "ns/a")))
	})
}

// mustGet returns the cached object under key.
func mustGet(t *testing.T, inf informer.SharedIndexInformer, key string) any {
	t.Helper()
	obj, exists, err := inf.GetStore().GetByKey(key)
	require.NoError(t, err)
	require.True(t, exists, "%s is not cached", key)
	return obj
}
