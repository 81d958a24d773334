package reflectortest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// compactPastReflector waits for the Reflector's first watch, makes a write
// in another namespace (so etcd's revision moves past everything the
// Reflector has seen; without a watch cache no bookmark tells it), compacts
// etcd there, and returns the compacted revision. The Reflector's next watch,
// from its list's resourceVersion, is then older than anything etcd keeps.
func compactPastReflector(t *testing.T, lw *recordingLW) int64 {
	t.Helper()
	lw.waitFor(t, wait, "the first watch", func(calls []call) bool { return len(calls) >= 2 })
	create(t, resource(t, podTemplates, testenv.Namespace(t)), newPodTemplate("elsewhere"))
	rev, err := testenv.ControlPlane(t).Compact(t.Context())
	require.NoError(t, err)
	return rev
}

// isExpiredCall reports whether c ended with 410 Expired, as an ERROR event
// in the stream or as the response to the request.
func isExpiredCall(c call) bool {
	if c.verb == "watch-error" {
		return c.err != nil && strings.Contains(c.err.Error(), "410 Expired")
	}
	return c.err != nil && apierrors.IsResourceExpired(c.err)
}

// TestWatchFromCompactedResourceVersionExpiresAndReflectorRelists: after etcd
// is compacted past the Reflector's resourceVersion, its next watch of a
// resource without a watch cache ends with 410 Expired. The Reflector relists
// at that same resourceVersion (a list "not older than" it, which etcd answers
// with its newest state) and carries on watching from the new list.
// Diagram: steps 1 and 2. client-go: Reflector.watch, isExpiredError -> relist.
func TestWatchFromCompactedResourceVersionExpiresAndReflectorRelists(t *testing.T) {
	ns := testenv.Namespace(t)
	pts := resource(t, podTemplates, ns)
	create(t, pts, newPodTemplate("one"))
	lw := newRecordingLW(pts)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())
	runReflector(t, lw, &corev1.PodTemplate{}, store, log,
		reflector.Options{Name: "podtemplates", MinWatchTimeout: 2 * time.Second})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })
	listRV := store.replacedAt()

	rev := compactPastReflector(t, lw)
	store.waitFor(t, wait, "the relist", func() bool { return store.countPrefix("replace@") == 2 })
	create(t, pts, newPodTemplate("two"))
	store.waitFor(t, wait, "a create after the relist", func() bool { return store.has(ns + "/two") })

	calls := lw.snapshot()
	t.Logf("list at %s, compacted at %d; calls: %v", listRV, rev, calls)
	expired := -1
	for i, c := range calls {
		if isExpiredCall(c) {
			expired = i
			break
		}
	}
	require.GreaterOrEqual(t, expired, 0, "a watch ended with 410 Expired")
	assert.Equal(t, listRV, calls[expired].opts.ResourceVersion, "the expired watch started at the list's resourceVersion")
	var relist *call
	for i := expired + 1; i < len(calls); i++ {
		if calls[i].verb == "list" {
			relist = &calls[i]
			break
		}
	}
	require.NotNil(t, relist, "a list follows the 410")
	assert.Equal(t, listRV, relist.opts.ResourceVersion, "the relist asks for the last seen resourceVersion, not \"\"")
	assert.NoError(t, relist.err, "a list not older than a compacted resourceVersion succeeds")
	assert.Equal(t, 2, lw.count("list"))
}

// TestPaginatedRelistAtCompactedResourceVersionFallsBackToNewest: with a page
// size, the relist after the 410 is a paginated list at the old
// resourceVersion, which means "exactly that version" to kube-apiserver; etcd
// no longer has it, so that list is refused with 410 Expired too. The
// Reflector then lists at "" (the newest state, always available) and
// recovers.
// Diagram: steps 1 and 2. client-go: Reflector.list, isExpiredError -> setIsLastSyncResourceVersionUnavailable.
func TestPaginatedRelistAtCompactedResourceVersionFallsBackToNewest(t *testing.T) {
	ns := testenv.Namespace(t)
	pts := resource(t, podTemplates, ns)
	for _, name := range []string{"a", "b", "c"} {
		create(t, pts, newPodTemplate(name))
	}
	lw := newRecordingLW(pts)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())
	runReflector(t, lw, &corev1.PodTemplate{}, store, log,
		reflector.Options{Name: "podtemplates", MinWatchTimeout: 2 * time.Second, PageSize: 2})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })
	listRV := store.replacedAt()

	rev := compactPastReflector(t, lw)
	store.waitFor(t, wait, "the relist", func() bool { return store.countPrefix("replace@") == 2 })

	calls := lw.snapshot()
	t.Logf("list at %s, compacted at %d; calls: %v", listRV, rev, calls)
	var lists []call
	for _, c := range calls {
		if c.verb == "list" && c.opts.Continue == "" {
			lists = append(lists, c)
		}
	}
	require.Len(t, lists, 3, "the first list, the refused relist, the relist at \"\": %v", calls)
	assert.Equal(t, listRV, lists[1].opts.ResourceVersion)
	assert.Equal(t, int64(2), lists[1].opts.Limit)
	assert.True(t, apierrors.IsResourceExpired(lists[1].err), "a paginated list at a compacted resourceVersion: %v", lists[1].err)
	assert.Equal(t, "", lists[2].opts.ResourceVersion, "the fallback lists the newest state")
	assert.NoError(t, lists[2].err)
	assert.Len(t, store.contents(), 3)
	assert.True(t, rvAtLeast(store.replacedAt(), listRV), "the relist is at or past the first list")
}
