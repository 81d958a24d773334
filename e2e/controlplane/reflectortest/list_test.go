package reflectortest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	"github.com/informerlab/informerlab/reflector"
)

// TestPaginatedListFollowsContinueTokens: with no watch cache in front of a
// resource, kube-apiserver pages a list at resourceVersion "0" as asked; the
// Reflector follows the continue tokens (later pages carry only the token and
// the limit) and replaces its Store once, with every item, at the first page's
// resourceVersion.
// Diagram: steps 1 and 2. client-go: tools/pager.ListPager in Reflector.list.
func TestPaginatedListFollowsContinueTokens(t *testing.T) {
	require.Equal(t, "podtemplates", controlplane.UncachedResource)
	ns := testenv.Namespace(t)
	pts := resource(t, podTemplates, ns)
	for i := range 25 {
		create(t, pts, newPodTemplate(fmt.Sprintf("pt-%02d", i)))
	}
	lw := newRecordingLW(pts)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())

	runReflector(t, lw, &corev1.PodTemplate{}, store, log, reflector.Options{Name: "podtemplates", PageSize: 10})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })

	var lists []call
	for _, c := range lw.snapshot() {
		if c.verb == "list" {
			lists = append(lists, c)
		}
	}
	require.Len(t, lists, 3, "25 items in pages of 10: %v", lists)
	assert.Equal(t, "0", lists[0].opts.ResourceVersion)
	assert.Empty(t, lists[0].opts.Continue)
	for _, c := range lists[1:] {
		assert.NotEmpty(t, c.opts.Continue, "a later page asks with its continue token")
		assert.Empty(t, c.opts.ResourceVersion, "the token pins the snapshot; no resourceVersion beside it")
		assert.Equal(t, int64(10), c.opts.Limit)
	}
	assert.Len(t, store.contents(), 25)
}

// TestListAtZeroFromWatchCacheComesInOnePage: the same list of a resource
// behind the watch cache (ConfigMaps) is answered from the cache, whole,
// whatever the limit: a list at "0" means "any recent state", and the cache
// has it in memory. The Reflector makes exactly one request. "Recent" may
// be a write or two behind the last create: the objects the list missed
// arrive on the watch that starts at the list's resourceVersion.
// Diagram: step 1. client-go: the comment on Reflector.list about paginatedResult.
func TestListAtZeroFromWatchCacheComesInOnePage(t *testing.T) {
	ns := testenv.Namespace(t)
	cms := resource(t, configMaps, ns)
	for i := range 25 {
		create(t, cms, newConfigMap(fmt.Sprintf("cm-%02d", i)))
	}
	lw := newRecordingLW(cms)
	store, log := newWaitStore(), testenv.NewTransitions(t.Output())

	runReflector(t, lw, &corev1.ConfigMap{}, store, log, reflector.Options{Name: "configmaps", PageSize: 10})
	store.waitFor(t, wait, "the initial list", func() bool { return store.countPrefix("replace@") == 1 })

	store.waitFor(t, wait, "all 25 objects, by list or watch", func() bool { return len(store.contents()) == 25 })
	assert.Equal(t, 1, lw.count("list"), "calls: %v", lw.snapshot())
}
