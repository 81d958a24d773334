package walkthrough

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionMutatingACachedObject changes an object a lister returned, as
// a careless Reconcile would before sending it to the server. The lister
// hands out the cache's own pointer, so the next reader — another worker,
// another controller sharing the informer — sees a state the server never
// had, and when the real update arrives, the handler's old object carries
// the stray change too, so comparing old with new finds a difference that
// was never made. The informer runs with the cache mutation detector on, as
// a test or CI run would: within a second it names the object and shows the
// stray change as a diff. DeepCopy first, and the cache is untouched and the
// detector quiet.
//
// Diagram: steps 5, 6, 9. client-go: tools/cache mutation_detector.go (KUBE_CACHE_MUTATION_DETECTOR), listers returning shared pointers.
func TestConfusionMutatingACachedObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		create(t, cms, configMap("ns", "a", "1"))
		detected := make(chan informer.CacheMutation, 10)
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet),
			informer.WithCacheMutationDetector(func(m informer.CacheMutation) { detected <- m }))
		var mu sync.Mutex
		var oldLabels []map[string]string
		startInformer(t, inf, informer.ResourceEventHandlerFuncs{
			UpdateFunc: func(oldObj, _ any) {
				mu.Lock()
				defer mu.Unlock()
				oldLabels = append(oldLabels, oldObj.(*unstructured.Unstructured).GetLabels())
			},
		})
		lister := informer.NewLister[*unstructured.Unstructured](inf.GetIndexer(), cmGVR.GroupResource())

		mine, err := lister.Namespace("ns").Get("a")
		require.NoError(t, err)
		mine.SetLabels(map[string]string{"touched": "by-mistake"})
		theirs, err := lister.Namespace("ns").Get("a")
		require.NoError(t, err)
		onServer, err := cms.Get(context.Background(), "a", metav1.GetOptions{})
		require.NoError(t, err)
		t.Log("1. A Reconcile sets a label on the object the lister returned, without DeepCopy")
		t.Logf("   the next lister Get returns the same pointer: %v; its labels: %v; the server's labels: %v",
			mine == theirs, theirs.GetLabels(), onServer.(*unstructured.Unstructured).GetLabels())

		assert.Same(t, mine, theirs, "every reader gets the same pointer")
		assert.Equal(t, "by-mistake", theirs.GetLabels()["touched"], "the next reader sees the mutation")
		assert.Empty(t, onServer.(*unstructured.Unstructured).GetLabels(), "the server never had it")

		setValue(t, cms, "a", "2")
		synctest.Wait()
		mu.Lock()
		t.Logf("2. A real update arrives; the handler's old object carries labels %v, which nobody ever wrote", oldLabels)
		assert.Equal(t, []map[string]string{{"touched": "by-mistake"}}, oldLabels,
			"the handler's old object has a label nobody ever wrote")
		mu.Unlock()
		time.Sleep(time.Second) // the detector compares every second
		synctest.Wait()
		require.Len(t, detected, 1, "the detector reports the mutation once")
		report := <-detected
		assert.Equal(t, "ns/a", report.Key)
		assert.Contains(t, report.Diff, "+  \"labels\": {\n+   \"touched\": \"by-mistake\"\n+  },\n",
			"the diff shows the stray change against the state the informer cached")

		cached, err := lister.Namespace("ns").Get("a")
		require.NoError(t, err)
		copied := cached.DeepCopy()
		copied.SetLabels(map[string]string{"touched": "safely"})
		again, err := lister.Namespace("ns").Get("a")
		require.NoError(t, err)
		t.Logf("3. The same change on a DeepCopy: the copy has %v, the cache still has %v", copied.GetLabels(), again.GetLabels())
		assert.Empty(t, again.GetLabels(), "a change to a DeepCopy stays in the copy")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		assert.Empty(t, detected, "and the detector has nothing to say")
	})
}
