package reflectortest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// TestStreamingListAgainstRealServer: with UseWatchList the Reflector makes
// no List request at all. kube-apiserver answers a watch with
// sendInitialEvents=true with one Added event per object, then a bookmark
// annotated k8s.io/initial-events-end; the Reflector replaces its Store with
// those objects at the bookmark's resourceVersion and keeps the same stream as
// its watch, so a later create arrives without a new request.
// Diagram: steps 1 and 2. client-go: Reflector.watchList (WatchListClient).
func TestStreamingListAgainstRealServer(t *testing.T) {
	ns := testenv.Namespace(t)
	cms := resource(t, configMaps, ns)
	for i := range 5 {
		create(t, cms, newConfigMap(fmt.Sprintf("cm-%d", i)))
	}
	lw := newRecordingLW(cms)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())

	runReflector(t, lw, &corev1.ConfigMap{}, store, log, reflector.Options{Name: "configmaps", UseWatchList: true})
	store.waitFor(t, wait, "the streamed list", func() bool { return store.countPrefix("replace@") == 1 })
	create(t, cms, newConfigMap("later"))
	store.waitFor(t, wait, "the later create", func() bool { return store.has(ns + "/later") })

	calls := lw.snapshot()
	require.Len(t, calls, 1, "one request, the streaming list: %v", calls)
	assert.Equal(t, "watch", calls[0].verb)
	require.NotNil(t, calls[0].opts.SendInitialEvents)
	assert.True(t, *calls[0].opts.SendInitialEvents)
	assert.Equal(t, "NotOlderThan", string(calls[0].opts.ResourceVersionMatch))
	assert.True(t, calls[0].opts.AllowWatchBookmarks)
	assert.Equal(t, 1, store.countPrefix("replace@"))
	assert.Len(t, store.contents(), 6)
	for _, edge := range log.List() {
		assert.NotContains(t, edge, "falling back to a list", "the real server speaks the streaming list")
	}
}
