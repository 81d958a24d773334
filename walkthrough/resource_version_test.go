package walkthrough

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionResourceVersionRules shows what a resourceVersion is and what
// the values a client sends mean.
//
// On the server: one counter for every object of every resource, so an
// object's resourceVersion says nothing about how often it changed; a write
// that changes nothing keeps it, so equal resourceVersions mean the same
// stored state. A list at "" is the newest state and may be paginated; at
// "0" it is any state the server has at hand (the newest, here) and the
// limit is ignored; at an old N with a limit it is that exact past snapshot;
// ahead of the server it is 504, and older than the server's history 410.
// Two versions of one resource may be ordered only as integers
// (resourceversion.CompareResourceVersion, guaranteed since Kubernetes 1.35):
// as strings "9" sorts after "10".
//
// In the Reflector: the first list asks for "0", the watch starts at the
// list's resourceVersion, a relist after 410 asks for the last version seen,
// and only if that too is gone, for "".
//
// Diagram: step 1. client-go: Reflector.relistResourceVersion; the API server's list semantics.
func TestConfusionResourceVersionRules(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newServer(t, fakeapi.Options{})
			cms := srv.Resource(cmGVR).Namespace("ns")
			a := create(t, cms, configMap("ns", "a", "old"))
			create(t, cms, configMap("ns", "b", "1"))
			create(t, srv.Resource(foosGVR).Namespace("ns"), newFoo("ns", "f", 1))
			newA := setValue(t, cms, "a", "new")
			t.Logf("1. Create a@%s, b, a Foo, then update a: a is now at resourceVersion %s, not \"2\": one counter for every object of every resource", rvOf(a), rvOf(newA))

			assert.NotEqual(t, "2", rvOf(newA), "the second version of a is not \"2\": the counter is shared")
			same := setValue(t, cms, "a", "new")
			assert.Equal(t, rvOf(newA), rvOf(same), "a write that changes nothing keeps the resourceVersion")
			t.Logf("   a write that changes nothing keeps it: still %s", rvOf(same))

			items, cont, listRV := list(t, cms, metav1.ListOptions{ResourceVersion: "", Limit: 1})
			t.Logf("2. list rv=\"\" limit=1: %d item, continue token set: %v, list resourceVersion %s (the newest)", len(items), cont != "", listRV)
			assert.Len(t, items, 1, `"" honours the limit...`)
			assert.NotEmpty(t, cont, "...and hands out a continue token")
			assert.Equal(t, rvOf(newA), listRV)

			items, cont, _ = list(t, cms, metav1.ListOptions{ResourceVersion: "0", Limit: 1})
			t.Logf("   list rv=\"0\" limit=1: %d items, continue token set: %v (any state at hand, limit ignored)", len(items), cont != "")
			assert.Len(t, items, 2, `"0" ignores the limit: it is served whole from the cache`)
			assert.Empty(t, cont)

			items, _, listRV = list(t, cms, metav1.ListOptions{ResourceVersion: rvOf(a), Limit: 10})
			t.Logf("   list rv=%q limit=10: %d item at resourceVersion %s (exactly that snapshot: b did not exist yet)", rvOf(a), len(items), listRV)
			assert.Equal(t, rvOf(a), listRV)
			require.Len(t, items, 1, "the exact snapshot at a's first version: b did not exist yet")
			assert.Equal(t, "old", value(items[0]))

			items, _, _ = list(t, cms, metav1.ListOptions{ResourceVersion: rvOf(a)})
			t.Logf("   list rv=%q, no limit: %d items (not older than %s: the newest state)", rvOf(a), len(items), rvOf(a))
			assert.Len(t, items, 2, "without a limit, N means \"not older than N\": the newest state")

			_, err := cms.List(context.Background(), metav1.ListOptions{ResourceVersion: "1000"})
			t.Logf("   list rv=\"1000\", ahead of the server: %v (504, cause ResourceVersionTooLarge: %v)", err, apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge))
			assert.True(t, apierrors.IsTimeout(err) && apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge),
				"ahead of the server: 504 too large, got %v", err)

			srv.Compact()
			_, err = cms.List(context.Background(), metav1.ListOptions{ResourceVersion: rvOf(a), Limit: 10})
			t.Logf("   after a compaction, list rv=%q limit=10: %v (410)", rvOf(a), err)
			assert.True(t, apierrors.IsResourceExpired(err), "older than the history: 410, got %v", err)

			byRV := map[string]*unstructured.Unstructured{}
			for _, name := range []string{"c", "d", "e", "f", "g", "h"} {
				obj := create(t, cms, configMap("ns", name, "1"))
				byRV[rvOf(obj)] = obj
			}
			nine, ten := byRV["9"], byRV["10"]
			require.NotNil(t, nine)
			require.NotNil(t, ten)
			assert.Greater(t, rvOf(nine), rvOf(ten), "compared as strings, the older version sorts after the newer")
			order, err := resourceversion.CompareResourceVersion(rvOf(nine), rvOf(ten))
			require.NoError(t, err)
			assert.Equal(t, -1, order, "compared as the integers they are (Kubernetes 1.35 and later), it does not")
			_, err = resourceversion.CompareResourceVersion("0", rvOf(ten))
			t.Logf("3. As strings %q > %q is %v; CompareResourceVersion(%q, %q) = %d (as integers)", rvOf(nine), rvOf(ten), rvOf(nine) > rvOf(ten), rvOf(nine), rvOf(ten), order)
			t.Logf("   CompareResourceVersion(\"0\", %q): %v", rvOf(ten), err)
			assert.Error(t, err, `"0" is a request meaning "any", never the version of an object`)
		})
	})

	t.Run("reflector", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newServer(t, fakeapi.Options{})
			cms := srv.Resource(cmGVR).Namespace("ns")
			a := create(t, cms, configMap("ns", "a", "1"))
			lw := &countingLW{inner: cms}
			inf := informer.NewSharedIndexInformer(lw, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
			startInformer(t, inf)
			assert.Equal(t, rvOf(a), inf.LastSyncResourceVersion())
			b := create(t, cms, configMap("ns", "b", "1"))
			synctest.Wait()
			assert.Equal(t, rvOf(b), inf.LastSyncResourceVersion(), "each watch event moves it on")

			time.Sleep(5 * time.Second)
			require.NoError(t, srv.FailNext("list", 1, http.StatusGone))
			srv.InjectWatchError(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
			time.Sleep(2 * time.Second)
			synctest.Wait()

			t.Logf("4. The Reflector's requests, across a 410 and a relist that is 410 too: %s", strings.Join(lw.whats(), ", "))
			assert.Equal(t, []string{
				`list rv="0"`,                // first list: any recent state will do
				`watch rv="` + rvOf(a) + `"`, // from the list's version
				`list rv="` + rvOf(b) + `"`,  // relist after 410: nothing older than what was seen
				`list rv=""`,                 // that is gone too (410): the newest state, at once
				`watch rv="` + rvOf(b) + `"`, // and watch on from there
			}, lw.whats())
		})
	})
}

// list lists through c and returns the items, the continue token and the
// list's resourceVersion.
func list(t *testing.T, c *fakeapi.ResourceClient, opts metav1.ListOptions) ([]*unstructured.Unstructured, string, string) {
	t.Helper()
	obj, err := c.List(context.Background(), opts)
	require.NoError(t, err)
	objs, err := meta.ExtractList(obj)
	require.NoError(t, err)
	items := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		items[i] = o.(*unstructured.Unstructured)
	}
	lm, err := meta.ListAccessor(obj)
	require.NoError(t, err)
	return items, lm.GetContinue(), lm.GetResourceVersion()
}
