package walkthrough

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/workqueue"
)

// TestConfusionLevelNotEdgeTriggered follows a job-like object through
// Pending -> Running -> Succeeded while the informer is disconnected: the
// last two writes reach no watch, the history is compacted, and the
// Reflector relists. The informer promises the latest state, not every
// state: the handler sees Pending, then Succeeded. An edge-triggered handler
// waiting for "entered Running" never fires. A level-triggered worker, which
// only enqueues the key and reads the current state when its turn comes,
// sees Succeeded and does the right thing.
//
// Diagram: steps 1-9. client-go: the SharedIndexInformer contract (a subsequence of states).
func TestConfusionLevelNotEdgeTriggered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		create(t, cms, configMap("ns", "job", "Pending"))
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		queue := workqueue.New[string]()
		t.Cleanup(queue.ShutDown)
		var mu sync.Mutex
		var seen []string // every phase the handler was shown
		enteredRunning := 0
		startInformer(t, inf, informer.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, value(obj))
				queue.Add(keyOf(obj))
			},
			UpdateFunc: func(oldObj, newObj any) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, value(newObj))
				if value(oldObj) != "Running" && value(newObj) == "Running" {
					enteredRunning++ // edge-triggered: act on the transition
				}
				queue.Add(keyOf(newObj)) // level-triggered: remember which object, nothing else
			},
		})
		key, _ := queue.Get()
		queue.Done(key)
		t.Logf("1. The informer has synced; the handler was shown %q", value(mustGet(t, inf, key)))

		time.Sleep(5 * time.Second)
		silent := srv.SilentResource(cmGVR).Namespace("ns")
		for _, phase := range []string{"Running", "Succeeded"} {
			_, err := silent.Patch(context.Background(), "job", types.MergePatchType, []byte(`{"data":{"value":"`+phase+`"}}`), metav1.PatchOptions{})
			require.NoError(t, err)
		}
		srv.Compact()
		srv.CloseWatches()
		t.Log("2. While the informer is disconnected the job goes Running, then Succeeded; the Reflector relists")
		time.Sleep(2 * time.Second)
		synctest.Wait()

		mu.Lock()
		t.Logf("   the handler was shown %s; the edge-triggered action (on entering Running) ran %d times",
			strings.Join(seen, " -> "), enteredRunning)
		assert.Equal(t, []string{"Pending", "Succeeded"}, seen, "Running was never in the cache")
		assert.Equal(t, 0, enteredRunning, "so the edge-triggered action never ran")
		mu.Unlock()
		key, _ = queue.Get()
		defer queue.Done(key)
		current := value(mustGet(t, inf, key))
		t.Logf("3. The level-triggered worker takes %q and reads %q from the cache: it acts on the state that is", key, current)
		assert.Equal(t, "ns/job", key)
		assert.Equal(t, "Succeeded", current, "the level-triggered worker acts on the state that is")
	})
}
