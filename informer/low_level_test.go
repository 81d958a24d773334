package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

// cacheChecker is a ResourceEventHandler that, at each call, looks the
// object up in a cache and records whether the cache already held it (or,
// for a deletion, no longer held it), next to the recorder's line.
type cacheChecker struct {
	*recorder
	cache func() indexer.Store // set before Run

	mu    sync.Mutex // guards stale
	stale []string
}

func (c *cacheChecker) check(obj any, wantPresent bool) {
	_, present, err := c.cache().GetByKey(keyOf(obj))
	if err != nil || present != wantPresent {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.stale = append(c.stale, fmt.Sprintf("%s: in the cache %v, want %v", keyOf(obj), present, wantPresent))
	}
}

func (c *cacheChecker) OnAdd(obj any, initial bool) {
	c.check(obj, true)
	c.recorder.OnAdd(obj, initial)
}
func (c *cacheChecker) OnUpdate(o, n any) { c.check(n, true); c.recorder.OnUpdate(o, n) }
func (c *cacheChecker) OnDelete(obj any)  { c.check(obj, false); c.recorder.OnDelete(obj) }

// runController runs c until the end of the test.
func runController(t *testing.T, c informer.Controller) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// TestStandaloneInformerWritesTheCacheBeforeCallingItsHandler runs the
// low-level informer on each queue: the initial list, an update and a
// deletion reach the one handler, each after the cache holds the change,
// and the Controller syncs once the initial list has been handled.
//
// Diagram: steps 3-6 without the shared processor. client-go:
// tools/cache.NewInformerWithOptions, processDeltas.
func TestStandaloneInformerWritesTheCacheBeforeCallingItsHandler(t *testing.T) {
	for _, kind := range []informer.QueueKind{informer.QueueDeltaFIFO, informer.QueueRealFIFO, informer.QueueAtomicFIFO} {
		t.Run(kind.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t, fakeapi.Options{})
				cms := srv.Resource(cmGVR)
				a := create(t, cms, "ns", "a", "1")
				h := &cacheChecker{recorder: newRecorder()}
				cache, c := informer.NewInformerWithOptions(informer.InformerOptions{
					ListerWatcher: cms, ObjectType: exampleCM(), Handler: h, Queue: kind, Logger: quiet,
				})
				h.cache = func() indexer.Store { return cache }
				require.False(t, c.HasSynced(), "synced before Run")

				runController(t, c)
				require.True(t, informer.WaitForCacheSync(t.Context(), c))
				initial := h.take()
				a2 := update(t, cms, "ns", "a", "2")
				remove(t, cms, "ns", "a")
				synctest.Wait()

				assert.Equal(t, []string{"add ns/a@" + rvOf(a) + " initial"}, initial)
				later := h.take()
				require.Len(t, later, 2)
				assert.Equal(t, "update ns/a@"+rvOf(a)+"->"+rvOf(a2), later[0])
				assert.Regexp(t, `^delete ns/a@\d+$`, later[1], "the deletion's own state, not a tombstone")
				assert.Empty(t, h.stale)
				assert.Empty(t, cache.List())
				assert.NotEmpty(t, c.LastSyncResourceVersion())
			})
		})
	}
}

// TestStandaloneInformerTransformsOnceAndResyncsFromTheCache sets a
// transform and a resync period: the cache and the handler see transformed
// objects, every resync hands each cached object to the handler again as
// OnUpdate(obj, obj), and a resync never transforms again (the cached object
// is not rewritten under a reader).
//
// Diagram: steps 2-6. client-go: tools/cache.NewTransformingInformer,
// TransformFunc (not applied to Sync deltas).
func TestStandaloneInformerTransformsOnceAndResyncsFromTheCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		a := create(t, cms, "ns", "a", "1")
		var mu sync.Mutex
		transforms := 0
		strip := func(obj any) (any, error) {
			mu.Lock()
			transforms++
			mu.Unlock()
			u := obj.(*unstructured.Unstructured)
			delete(u.Object, "data")
			return u, nil
		}
		rec := newRecorder()
		cache, c := informer.NewTransformingInformer(cms, exampleCM(), 10*time.Second, rec, strip)

		runController(t, c)
		require.True(t, informer.WaitForCacheSync(t.Context(), c))
		time.Sleep(25 * time.Second)
		synctest.Wait()

		want := fmt.Sprintf("update ns/a@%s->%s", rvOf(a), rvOf(a))
		assert.Equal(t, []string{"add ns/a@" + rvOf(a) + " initial", want, want}, rec.take())
		cached, ok, err := cache.GetByKey("ns/a")
		require.NoError(t, err)
		require.True(t, ok)
		assert.NotContains(t, cached.(*unstructured.Unstructured).Object, "data", "the cache holds the transformed object")
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, 1, transforms, "one object listed once: one transform, however many resyncs")
	})
}

// TestStandaloneInformerPanicEndsRunAfterTheReflectorStopped makes the
// handler panic: the panic is not recovered by the loop, it comes out of
// Run on the caller's goroutine — but only after the Reflector has stopped
// and the queue is closed, so nothing is left writing to the queue.
//
// Diagram: step 3. client-go: controller.RunWithContext (a handler panic
// propagates; TestPanicPropagated).
func TestStandaloneInformerPanicEndsRunAfterTheReflectorStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		q := deltafifo.New(deltafifo.Options{Logger: quiet})
		c := informer.New(&informer.Config{
			Queue: q, ListerWatcher: cms, ObjectType: exampleCM(), Logger: quiet,
			Process: func(deltafifo.Deltas, bool) error { panic("handler bug") },
		})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		panicked := make(chan any, 1)
		go func() {
			defer func() { panicked <- recover() }()
			c.Run(ctx)
		}()

		create(t, cms, "ns", "a", "1")
		p := <-panicked
		create(t, cms, "ns", "b", "1")
		synctest.Wait()

		assert.Equal(t, "handler bug", p)
		assert.True(t, q.IsClosed(), "Run closed the queue on its way out")
		assert.Empty(t, q.ListKeys(), "no Reflector queued b after Run ended")
	})
}

// TestNewReportsAnIncompleteConfigFromRun checks that a Config without a
// queue, a ListerWatcher or a process function, a nil Config and
// InformerOptions without a handler are not a panic: Run logs why and
// returns at once, and the Controller never syncs.
//
// Diagram: the Informer box. client-go: tools/cache.New (which would panic
// on the first use of the missing part).
func TestNewReportsAnIncompleteConfigFromRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		process := func(deltafifo.Deltas, bool) error { return nil }
		q := deltafifo.New(deltafifo.Options{Logger: quiet})
		log := newLogCapture()
		logger := slog.New(log)
		_, noHandler := informer.NewInformerWithOptions(informer.InformerOptions{ListerWatcher: cms, Logger: logger})
		controllers := map[string]informer.Controller{
			"nil Config":       informer.New(nil),
			"no Queue":         informer.New(&informer.Config{ListerWatcher: cms, Process: process, Logger: logger}),
			"no ListerWatcher": informer.New(&informer.Config{Queue: q, Process: process, Logger: logger}),
			"no Process":       informer.New(&informer.Config{Queue: q, ListerWatcher: cms, Logger: logger}),
			"no Handler":       noHandler,
		}

		for name, c := range controllers {
			c.Run(t.Context())

			assert.False(t, c.HasSynced(), name)
		}
		assert.Subset(t, log.all(), []string{
			"informer: cannot run err=informer: Config needs a Queue",
			"informer: cannot run err=informer: Config needs a ListerWatcher",
			"informer: cannot run err=informer: Config needs a Process function",
			"informer: cannot run err=informer: InformerOptions needs a Handler",
		})
	})
}
