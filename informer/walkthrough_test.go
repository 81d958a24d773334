package informer_test

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// handedOver is a handler that passes every object it is given on a channel.
type handedOver chan any

func (h handedOver) OnAdd(obj any, _ bool) { h <- obj }
func (h handedOver) OnUpdate(_, obj any)   { h <- obj }
func (h handedOver) OnDelete(obj any)      { h <- obj }
func (h handedOver) next(t *testing.T) any {
	t.Helper()
	select {
	case obj := <-h:
		return obj
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not called within 10s")
		return nil
	}
}

// firstIndex returns the index of the first line containing every part, or -1.
func firstIndex(lines []string, parts ...string) int {
	return slices.IndexFunc(lines, func(l string) bool {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				return false
			}
		}
		return true
	})
}

// TestWalkthrough follows one ConfigMap, demo/greeting, from the API server
// to an event handler, one subtest per step of the diagram. The informer
// logs each step at debug level; the subtests read that trace, the cache and
// the handler. Run it with -v to read the story:
//
//	go test ./informer -run Walkthrough -v
//
// Diagram: steps 1-6. client-go: sharedIndexInformer.Run, controller.processLoop, processDeltas.
func TestWalkthrough(t *testing.T) {
	srv := newServer(t, fakeapi.Options{})
	configMaps := srv.Resource(cmGVR)
	trace := newLogCapture()
	inf := informer.NewSharedIndexInformer(configMaps, exampleCM(), 0,
		indexer.Indexers{indexer.NamespaceIndex: indexer.MetaNamespaceIndexFunc},
		informer.WithLogger(slog.New(trace)))
	handler := make(handedOver, 10)
	reg, err := inf.AddEventHandler(handler)
	require.NoError(t, err)
	existing := create(t, configMaps, "setup", "existing", "listed")
	const key = "demo/greeting"

	// The story's one action: start the informer, then create demo/greeting.
	// Each subtest reads the evidence one step left behind, so any one of
	// them can be run alone (-run 'Walkthrough/step_3').
	run(t, inf)
	require.True(t, informer.WaitForCacheSync(t.Context(), inf, reg), "the initial list is synced")
	// The Reflector records the list's resourceVersion just after handing the
	// list to the queue, so the informer may report synced a moment earlier.
	var listedAt string
	require.Eventually(t, func() bool {
		listedAt = inf.LastSyncResourceVersion()
		return listedAt != ""
	}, 10*time.Second, time.Millisecond, "the Reflector records the list's resourceVersion")
	handler.next(t) // the listed object
	created := create(t, configMaps, "demo", "greeting", "hello")
	handler.next(t) // wait until the new object has gone all the way through
	lines := trace.all()

	t.Run("step 1 List and Watch: the Reflector lists, then watches from the list's resourceVersion", func(t *testing.T) {
		assert.Equal(t, existing.GetResourceVersion(), listedAt, "the list's resourceVersion")
		// The Reflector records an event's resourceVersion just after queueing
		// the event, so the handler may have it a moment before that.
		assert.Eventually(t, func() bool { return inf.LastSyncResourceVersion() == created.GetResourceVersion() },
			10*time.Second, time.Millisecond, "the Reflector's watch delivered the object's resourceVersion")
		t.Logf("listed at resourceVersion %s, then the watch delivered %s at resourceVersion %s",
			listedAt, key, created.GetResourceVersion())
	})

	t.Run("step 2 Add Object: the Reflector queues the change in the DeltaFIFO", func(t *testing.T) {
		i := firstIndex(lines, "step 2", "key="+key, "op=add")

		require.GreaterOrEqual(t, i, 0, "no step 2 trace for %s", key)
		t.Log(lines[i])
	})

	t.Run("step 3 Pop Object: the process loop pops the key with its Deltas", func(t *testing.T) {
		i := firstIndex(lines, "step 3", "key="+key)

		require.GreaterOrEqual(t, i, 0)
		assert.Contains(t, lines[i], "deltas=[Added]")
		assert.Contains(t, lines[i], "isInInitialList=false", "created after the initial list")
		assert.Greater(t, i, firstIndex(lines, "step 2", "key="+key), "popped after it was queued")
		t.Log(lines[i])
	})

	t.Run("step 4 Add Object: the informer writes the object to the Indexer", func(t *testing.T) {
		i := firstIndex(lines, "steps 4-5", "key="+key)

		require.GreaterOrEqual(t, i, 0)
		assert.Contains(t, lines[i], "op=add", "the key was not cached, so it is an add")
		assert.Greater(t, i, firstIndex(lines, "step 3", "key="+key))
		t.Log(lines[i])
	})

	t.Run("step 5 Store Object and Key: the thread-safe store keeps it under its key and in every index", func(t *testing.T) {
		cached, exists, err := inf.GetIndexer().GetByKey(key)
		require.NoError(t, err)
		inNamespace, err := inf.GetIndexer().ByIndex(indexer.NamespaceIndex, "demo")
		require.NoError(t, err)

		require.True(t, exists)
		assert.Equal(t, created.GetResourceVersion(), rvOf(cached))
		assert.Len(t, inNamespace, 1)
		t.Logf("GetByKey(%q) -> resourceVersion %s; ByIndex(namespace, demo) -> %d object", key, rvOf(cached), len(inNamespace))
	})

	t.Run("step 6 Dispatch event handler: only then is the handler called, with the cached object", func(t *testing.T) {
		i := firstIndex(lines, "step 6", "key="+key)
		cached, _, _ := inf.GetIndexer().GetByKey(key)

		require.GreaterOrEqual(t, i, 0)
		assert.Contains(t, lines[i], "notification=add")
		assert.Greater(t, i, firstIndex(lines, "steps 4-5", "key="+key), "the cache is written before handlers are told")
		update(t, configMaps, "demo", "greeting", "hello again")
		updated := handler.next(t)
		assert.Same(t, mustGet(t, inf, key), updated, "the handler gets the cache's own object: never mutate it")
		assert.NotSame(t, cached, updated)
		t.Log(lines[i])
	})
}

func mustGet(t *testing.T, inf informer.SharedIndexInformer, key string) any {
	t.Helper()
	obj, exists, err := inf.GetIndexer().GetByKey(key)
	require.NoError(t, err)
	require.True(t, exists)
	return obj
}
