package reflectortest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// TestServerSendsBookmarksToAWatchThatAsks: a watch with
// allowWatchBookmarks=true on an empty namespace gets a BOOKMARK event two
// seconds before the server ends it at timeoutSeconds, carrying only a
// resourceVersion: that of a write in another namespace made while the watch
// was open. (The watch cache sends a bookmark only for progress the watch has
// not passed yet: with no write after the watch started, none comes.)
// Diagram: step 1. client-go: watch.Bookmark, reflector.go's bookmark handling.
func TestServerSendsBookmarksToAWatchThatAsks(t *testing.T) {
	quiet, busy := testenv.Namespace(t), testenv.Namespace(t)
	cms := resource(t, configMaps, quiet)
	list, err := cms.List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	listRV := list.(*corev1.ConfigMapList).ResourceVersion
	timeout := int64(5)

	w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: listRV, AllowWatchBookmarks: true, TimeoutSeconds: &timeout})
	require.NoError(t, err)
	otherRV := create(t, resource(t, configMaps, busy), newConfigMap("elsewhere"))
	var bookmarks []string
	for ev := range w.ResultChan() {
		require.Equal(t, watch.Bookmark, ev.Type, "nothing but bookmarks happens in %s: %v", quiet, ev.Object)
		m, err := meta.Accessor(ev.Object)
		require.NoError(t, err)
		assert.Empty(t, m.GetName(), "a bookmark names no object")
		bookmarks = append(bookmarks, m.GetResourceVersion())
	}

	t.Logf("bookmarks in a %ds watch: %v (write elsewhere at %s)", timeout, bookmarks, otherRV)
	require.NotEmpty(t, bookmarks, "the server ends the watch after %ds, with a bookmark first", timeout)
	assert.True(t, rvAtLeast(bookmarks[len(bookmarks)-1], otherRV),
		"the last bookmark (%s) is at or past the write in the other namespace (%s)", bookmarks[len(bookmarks)-1], otherRV)
}

// TestBookmarkMovesReflectorResourceVersionWithoutEvents: a Reflector whose
// namespace sees no change still moves its resourceVersion on, by bookmarks,
// so its next watch starts past a write elsewhere (made while its first watch
// was open) instead of at its list's resourceVersion, and its Store is never
// touched.
// Diagram: step 1. client-go: Reflector.watchHandler, case watch.Bookmark.
func TestBookmarkMovesReflectorResourceVersionWithoutEvents(t *testing.T) {
	quiet, busy := testenv.Namespace(t), testenv.Namespace(t)
	lw := newRecordingLW(resource(t, configMaps, quiet))
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())
	runReflector(t, lw, &corev1.ConfigMap{}, store, log,
		reflector.Options{Name: "configmaps", MinWatchTimeout: 5 * time.Second})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })
	listRV := store.replacedAt()
	lw.waitFor(t, wait, "the first watch", func(calls []call) bool { return len(calls) == 2 })

	otherRV := create(t, resource(t, configMaps, busy), newConfigMap("elsewhere"))
	lw.waitFor(t, wait, "a watch from a resourceVersion past the other write", func(calls []call) bool {
		for _, c := range calls {
			if c.verb == "watch" && rvAtLeast(c.opts.ResourceVersion, otherRV) {
				return true
			}
		}
		return false
	})

	t.Logf("list at %s, write elsewhere at %s, calls: %v", listRV, otherRV, lw.snapshot())
	assert.Equal(t, 1, lw.count("list"), "no relist")
	assert.Equal(t, []string{"replace@" + listRV + " 0"}, store.calls(), "bookmarks never reach the Store")
}
