package manager_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
)

// TestWalkthroughStaleReadAfterWrite follows one write from a reconciler
// to the API server and, later, back into the cache, and shows the read in
// between returning the old object; then the fix, waiting for the cache to
// reach the resourceVersion the write returned; then what happens when the
// cache never gets there. The watch is held (fakeapi HangWatches) to make
// the window wide and exact; without it the window is short, but the same.
// Run it with -v to read the story.
// Diagram: steps 1-5 then 9. client-go: the Kubernetes 1.36 staleness mitigation (KEP-5647), per object.
func TestWalkthroughStaleReadAfterWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{})
		ctrltest.Create(t, srv, ctrltest.CMWith("a", "config", map[string]any{"replicas": "1"}))
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()
		ctx := t.Context()
		read := func(r manager.Reader) *unstructured.Unstructured {
			got := ctrltest.ExampleCM()
			require.NoError(t, r.Get(ctx, ctrltest.Key("a", "config"), got))
			return got
		}

		t.Log("1. The reconciler reads the object from the cache and writes a change to the API server.")
		cm := read(c)
		srv.HangWatches(true) // the write's watch event is on its way, slowly
		cm.Object["data"] = map[string]any{"replicas": "2"}
		require.NoError(t, c.Update(ctx, cm))
		t.Logf("   the API server now holds replicas=2 at resourceVersion %s", cm.GetResourceVersion())

		t.Log("2. It reads again at once, from the cache, which has not seen the write: the read is stale.")
		stale := read(c)
		fresh := read(m.GetAPIReader())
		t.Logf("   cache: replicas=%s at resourceVersion %s; API server: replicas=%s", ctrltest.Data(t, stale)["replicas"], stale.GetResourceVersion(), ctrltest.Data(t, fresh)["replicas"])
		assert.Equal(t, "1", ctrltest.Data(t, stale)["replicas"], "stale")
		assert.Equal(t, "2", ctrltest.Data(t, fresh)["replicas"], "the API reader bypasses the cache")

		t.Log("3. The fix: wait until the cache holds the object at the resourceVersion the write returned.")
		began := time.Now()
		time.AfterFunc(3*time.Second, func() { srv.HangWatches(false) })
		require.NoError(t, c.WaitForResourceVersion(ctx, cm))
		t.Logf("   the watch event arrived after %s; the wait returned then", time.Since(began))
		assert.Equal(t, 3*time.Second, time.Since(began))

		t.Log("4. Now a read from the cache sees the write.")
		caughtUp := read(c)
		assert.Equal(t, "2", ctrltest.Data(t, caughtUp)["replicas"])
		assert.Equal(t, cm.GetResourceVersion(), caughtUp.GetResourceVersion())

		t.Log("5. A cache that never catches up is an error after DefaultCacheWaitTimeout, not a stuck worker.")
		srv.HangWatches(true)
		cm.Object["data"] = map[string]any{"replicas": "3"}
		require.NoError(t, c.Update(ctx, cm))
		began = time.Now()
		err := c.WaitForResourceVersion(ctx, cm)
		t.Logf("   after %s: %v", time.Since(began), err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, "the cache of configmaps has not caught up with resourceVersion "+cm.GetResourceVersion()+" of a/config (it has resourceVersion "+caughtUp.GetResourceVersion()+")")
		assert.Equal(t, manager.DefaultCacheWaitTimeout, time.Since(began))
		assert.NoError(t, c.CheckInvariants())
		srv.HangWatches(false)
	})
}

// TestStaleCacheCreatesDuplicateChildUnlessReconcilerWaits: a reconciler
// that creates a child (generateName) when it finds none in the cache
// creates two if it runs again before the cache has seen the first — the
// ReplicaSet-creates-too-many-Pods bug. Waiting for the child's
// resourceVersion after creating it makes the second run see it.
// Diagram: steps 9 then 1-5. client-go: the Kubernetes 1.36 staleness mitigation (ReplicaSet controller).
func TestStaleCacheCreatesDuplicateChildUnlessReconcilerWaits(t *testing.T) {
	for _, wait := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			srv := ctrltest.NewServer(t)
			m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{})
			ctrltest.RunManager(t, m)
			synctest.Wait()
			c := m.GetClient()
			ctx := t.Context()
			reconcile := func() error {
				children := cmList()
				if err := c.List(ctx, children, manager.InNamespace("a"), manager.MatchingLabels{"owner": "parent"}); err != nil {
					return err
				}
				if len(children.Items) > 0 {
					return nil
				}
				child := ctrltest.NewCM("a", "")
				child.SetGenerateName("child-")
				child.SetLabels(map[string]string{"owner": "parent"})
				if err := c.Create(ctx, child); err != nil {
					return err
				}
				if wait {
					return c.WaitForResourceVersion(ctx, child)
				}
				return nil
			}

			srv.HangWatches(true)
			time.AfterFunc(time.Second, func() { srv.HangWatches(false) })
			require.NoError(t, reconcile())
			require.NoError(t, reconcile())
			time.Sleep(2 * time.Second)
			synctest.Wait()

			onServer, err := srv.Resource(ctrltest.CMGVR).Namespace("a").List(ctx, metav1.ListOptions{LabelSelector: "owner=parent"})
			require.NoError(t, err)
			want := map[bool]int{false: 2, true: 1}[wait]
			t.Logf("the watch is held for 1s; two Reconciles in a row, WaitForResourceVersion after Create: %v -> children on the server: %d", wait, len(onServer.(*unstructured.UnstructuredList).Items))
			assert.Len(t, onServer.(*unstructured.UnstructuredList).Items, want, "wait=%t", wait)
		})
	}
}

// TestWaitForTheCacheHandlesDeletionsAndBadInput: a wait for a write that
// someone else has since deleted ends once the cache has seen the
// deletion; WaitForDeletion ends when the object is gone or replaced by a
// new one (another uid); an object without a resourceVersion, or with one
// that is not a number, is an error at once.
// Diagram: steps 5-6. client-go: KEP-5504 CompareResourceVersion (an error, not a guess, for malformed ones).
func TestWaitForTheCacheHandlesDeletionsAndBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{})
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()
		ctx := t.Context()
		server := srv.Resource(ctrltest.CMGVR).Namespace("a")
		mine := ctrltest.NewCM("a", "mine")
		require.NoError(t, c.Create(ctx, mine))
		require.NoError(t, c.WaitForResourceVersion(ctx, mine))
		began := time.Now()

		mine.SetLabels(map[string]string{"v": "2"})
		require.NoError(t, c.Update(ctx, mine))
		require.NoError(t, server.Delete(ctx, "mine", metav1.DeleteOptions{}))
		synctest.Wait()
		errDeletedMeanwhile := c.WaitForResourceVersion(ctx, mine)
		replaced := ctrltest.Create(t, srv, ctrltest.NewCM("a", "mine"))
		synctest.Wait()
		errReplaced := c.WaitForDeletion(ctx, mine)
		noRV := ctrltest.NewCM("a", "other")
		errNoRV := c.WaitForResourceVersion(ctx, noRV)
		badRV := ctrltest.NewCM("a", "other")
		badRV.SetResourceVersion("abc")
		errBadRV := c.WaitForResourceVersion(ctx, badRV)

		t.Logf("WaitForResourceVersion after the object was deleted: %v (the cache saw the deletion)", errDeletedMeanwhile)
		t.Logf("WaitForDeletion when a new object of that name (another uid) is cached: %v", errReplaced)
		t.Logf("WaitForResourceVersion of an object with no resourceVersion: %v", errNoRV)
		t.Logf("WaitForResourceVersion with resourceVersion abc: %v", errBadRV)
		assert.NoError(t, errDeletedMeanwhile, "the cache saw the deletion after my write")
		assert.NoError(t, errReplaced, "the cached a/mine has uid %s, not mine", replaced.GetUID())
		assert.ErrorContains(t, errNoRV, "pass the object a write returned")
		assert.ErrorContains(t, errBadRV, "resource version is not well formed: abc")
		assert.Zero(t, time.Since(began), "no wait ran into its timeout")
		assert.NoError(t, c.CheckInvariants())
	})
}

// TestWaitForTheCacheRemembersABoundedNumberOfDeletions: the memory of
// deletions that lets a wait end for a deleted object is bounded: after
// 1100 deletions it holds the last 1024, and a wait for one of them still
// ends at once.
// Diagram: step 6. client-go: none (ConsistencyStore.Clear forgets written versions instead).
func TestWaitForTheCacheRemembersABoundedNumberOfDeletions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewClientManager(t, ctrltest.NewCountingAPI(srv), manager.Options{})
		ctrltest.RunManager(t, m)
		synctest.Wait()
		c := m.GetClient()
		server := srv.Resource(ctrltest.CMGVR).Namespace("a")
		first := ctrltest.NewCM("a", "first")
		require.NoError(t, c.Create(t.Context(), first))
		require.NoError(t, c.WaitForResourceVersion(t.Context(), first)) // the tracker follows configmaps from now on

		var last *unstructured.Unstructured
		for batch := range 22 {
			for i := range 50 {
				last = ctrltest.Create(t, srv, ctrltest.NewCM("a", fmt.Sprintf("cm-%d-%d", batch, i)))
				require.NoError(t, server.Delete(t.Context(), last.GetName(), metav1.DeleteOptions{}))
			}
			synctest.Wait()
		}
		began := time.Now()

		assert.NoError(t, c.WaitForResourceVersion(t.Context(), last), "the last deletion is remembered")
		assert.Zero(t, time.Since(began))
		assert.NoError(t, c.CheckInvariants(), "at most 1024 deletions remembered")
	})
}
