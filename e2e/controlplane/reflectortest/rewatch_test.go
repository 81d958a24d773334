package reflectortest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// TestServerEndedWatchIsResumedWithoutRelist: every watch the Reflector opens
// asks the server to end it after timeoutSeconds (here 2-4s); kube-apiserver
// does, cleanly, and the Reflector opens the next watch from its last
// resourceVersion: one list in all, no event lost across the seams.
// Diagram: step 1. client-go: Reflector.watch's loop, a nil error from watchHandler.
func TestServerEndedWatchIsResumedWithoutRelist(t *testing.T) {
	ns := testenv.Namespace(t)
	cms := resource(t, configMaps, ns)
	lw := newRecordingLW(cms)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())
	runReflector(t, lw, &corev1.ConfigMap{}, store, log,
		reflector.Options{Name: "configmaps", MinWatchTimeout: 2 * time.Second})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })

	lw.waitFor(t, wait, "a second watch", func(calls []call) bool { return len(calls) >= 3 })
	create(t, cms, newConfigMap("between"))
	lw.waitFor(t, wait, "a third watch", func(calls []call) bool { return len(calls) >= 4 })
	create(t, cms, newConfigMap("later"))
	store.waitFor(t, wait, "both creates", func() bool { return store.has(ns+"/between") && store.has(ns+"/later") })

	calls := lw.snapshot()
	t.Logf("calls: %v", calls)
	assert.Equal(t, 1, lw.count("list"), "never relisted")
	prev := ""
	for _, c := range calls[1:] {
		require.Equal(t, "watch", c.verb, "only watches after the list: %v", calls)
		assert.NoError(t, c.err)
		require.NotNil(t, c.opts.TimeoutSeconds)
		assert.GreaterOrEqual(t, *c.opts.TimeoutSeconds, int64(2))
		assert.LessOrEqual(t, *c.opts.TimeoutSeconds, int64(4))
		assert.True(t, prev == "" || rvAtLeast(c.opts.ResourceVersion, prev), "each watch resumes at or after the last: %v", calls)
		prev = c.opts.ResourceVersion
	}
	rewatches := 0
	for _, edge := range log.List() {
		if strings.HasPrefix(edge, "watching -> watching: watch ended; re-watching") {
			rewatches++
		}
	}
	assert.GreaterOrEqual(t, rewatches, 2, "transitions: %v", log.List())
}
