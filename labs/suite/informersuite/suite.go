package informersuite

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
	"github.com/informerlab/informerlab/reflector"
)

// Informer is the API the suite grades: a shared informer with a cache
// and any number of handlers.
type Informer interface {
	// AddEventHandler registers a handler, before or after Run. On a
	// running informer the handler first gets every cached object as
	// OnAdd(obj, true).
	AddEventHandler(handler informer.ResourceEventHandler) error
	// GetIndexer is the cache.
	GetIndexer() indexer.Indexer
	// Run lists, watches, caches and notifies until ctx is cancelled,
	// then stops every goroutine it started and returns.
	Run(ctx context.Context)
	// HasSynced reports whether the initial list is in the cache.
	HasSynced() bool
}

// Impl is how an implementation plugs in.
type Impl struct {
	// New returns an informer of the objects lw serves, keyed by
	// namespace/name. It must not start anything: Run does.
	New func(lw reflector.ListerWatcher) Informer
}

// Reference is informerlab's own implementation: what
// informer/suite_test.go grades, and what labs/6-informer wires in under
// the labs_reference build tag.
var Reference = Impl{
	New: func(lw reflector.ListerWatcher) Informer {
		quiet := slog.New(slog.DiscardHandler)
		return sharedInformer{informer.NewSharedIndexInformer(lw, nil, 0, indexer.Indexers{},
			informer.WithLogger(quiet), informer.WithReflectorOptions(reflector.Options{Logger: quiet}))}
	},
}

// sharedInformer fits informer.SharedIndexInformer to the suite's
// Informer: the suite does not use the registration handle.
type sharedInformer struct{ informer.SharedIndexInformer }

func (s sharedInformer) AddEventHandler(h informer.ResourceEventHandler) error {
	_, err := s.SharedIndexInformer.AddEventHandler(h)
	return err
}

const (
	docLoop       = "docs/informer.md#the-process-loop-the-cache-first-the-handlers-after"
	docListeners  = "docs/informer.md#one-goroutine-and-one-buffer-per-handler"
	docTombstones = "docs/informer.md#tombstones"
	docResync     = "docs/informer.md#resync-versus-relist"
	docSync       = "docs/informer.md#per-handler-sync"
)

// env is a running informer on a fakeapi world.
type env struct {
	*world.World
	inf    Informer
	cancel context.CancelFunc
	done   <-chan struct{}
}

// newEnv makes the world and the informer, and runs nothing.
func newEnv(t *testing.T, impl Impl, prepare func(*world.World), objects []string) *env {
	t.Helper()
	e := &env{World: world.New(t, objects...)}
	if prepare != nil {
		prepare(e.World)
	}
	e.inf = impl.New(e.CMs)
	return e
}

// run registers handlers, runs the informer and lets the bubble settle.
func (e *env) run(t *testing.T, handlers ...*recorder) *env {
	t.Helper()
	for _, h := range handlers {
		require.NoError(t, e.inf.AddEventHandler(h))
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.done = grade.Go(t, func() { e.inf.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		<-e.done
	})
	synctest.Wait()
	return e
}

// start is newEnv, then run.
func start(t *testing.T, impl Impl, prepare func(*world.World), objects []string, handlers ...*recorder) *env {
	t.Helper()
	return newEnv(t, impl, prepare, objects).run(t, handlers...)
}

// cacheView is name → resourceVersion of the informer's cache.
func (e *env) cacheView() map[string]string {
	view := map[string]string{}
	for _, obj := range e.inf.GetIndexer().List() {
		name, rv := world.NameRV(obj)
		view[name] = rv
	}
	return view
}

func (e *env) patch(t *testing.T, name, value string) {
	t.Helper()
	_, err := e.CMs.Patch(context.Background(), name, types.MergePatchType,
		[]byte(`{"data":{"k":"`+value+`"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
}

// initialAdds is what a handler gets for the listed objects of view.
func initialAdds(view map[string]string) []string {
	var adds []string
	for name, rv := range view {
		adds = append(adds, "add "+name+" "+rv+" initial")
	}
	return adds
}

// Behaviours returns the graded behaviours of an informer. Each runs in a
// testing/synctest bubble against an in-memory fakeapi server.
func Behaviours(impl Impl) []grade.Behaviour {
	ab := []string{"a", "b"}
	return []grade.Behaviour{
		{
			Name: "CacheHoldsTheListAfterSync",
			Want: "once Run has listed, HasSynced is true and the cache (GetIndexer) holds every listed object, keyed namespace/name",
			Doc:  docLoop,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					e := start(t, impl, nil, ab)
					require.True(t, e.inf.HasSynced())
					assert.Equal(t, e.View(t), e.cacheView())
					_, ok, err := e.inf.GetIndexer().GetByKey("ns/a")
					require.NoError(t, err)
					assert.True(t, ok, "ns/a in the cache")
				})
			},
		},
		{
			Name: "HasSyncedWaitsForTheInitialList",
			Want: "HasSynced is false before Run and while the first list keeps failing, and true once it succeeded",
			Doc:  docSync,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					prepare := func(w *world.World) {
						require.NoError(t, w.Srv.FailNext("list", 2, http.StatusInternalServerError))
					}
					e := newEnv(t, impl, prepare, ab)
					assert.False(t, e.inf.HasSynced(), "before Run")
					e.run(t)
					assert.False(t, e.inf.HasSynced(), "the first list failed")
					world.Advance(5 * time.Minute)
					assert.True(t, e.inf.HasSynced(), "the third list succeeded")
					assert.Equal(t, e.View(t), e.cacheView())
				})
			},
		},
		{
			Name: "HasSyncedOnlyOnceTheCacheHoldsTheList",
			Want: "HasSynced turns true only once every object of the initial list is written to the cache, not when the last one was popped (the grader asks HasSynced at every cache write)",
			Doc:  docSync,
			Test: func(t *testing.T) { grade.Bubble(t, func(t *testing.T) { syncedOnlyWithTheList(t, impl) }) },
		},
		{
			Name: "InitialListArrivesAsInitialAdds",
			Want: "a handler registered before Run gets OnAdd(obj, isInInitialList=true) once for every listed object",
			Doc:  docSync,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					h := &recorder{}
					e := start(t, impl, nil, []string{"a", "b", "c"}, h)
					assert.ElementsMatch(t, initialAdds(e.View(t)), h.take())
				})
			},
		},
		{
			Name: "LiveEventsReachHandlersInOrder",
			Want: "after the list, creates, updates and deletes reach the handler as OnAdd(obj, false), OnUpdate(old, new) and OnDelete(obj), in the server's order",
			Doc:  docLoop,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					h := &recorder{}
					e := start(t, impl, nil, ab, h)
					before := e.View(t)
					h.take()
					e.Create(t, "c")
					e.patch(t, "a", "1")
					require.NoError(t, e.CMs.Delete(context.Background(), "b", metav1.DeleteOptions{}))
					deletedAt := e.RV()
					world.Advance(0)
					after := e.View(t)
					assert.Equal(t, []string{
						"add c " + after["c"],
						"update a " + before["a"] + "->" + after["a"],
						"delete b " + deletedAt,
					}, h.take())
					assert.Equal(t, after, e.cacheView())
				})
			},
		},
		{
			Name: "CacheIsUpdatedBeforeHandlersAreCalled",
			Want: "when a handler is called, the cache already holds the change: the object at least that new, or gone after a delete (the grader holds the loop just before each cache write, to give a handler called too early the time to look)",
			Doc:  docLoop,
			Test: func(t *testing.T) { grade.Bubble(t, func(t *testing.T) { cacheBeforeHandlers(t, impl) }) },
		},
		{
			Name: "MissedDeleteArrivesAsATombstone",
			Want: "an object deleted while the watch was down, found missing by the relist, reaches OnDelete as a DeletedFinalStateUnknown tombstone",
			Doc:  docTombstones,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					h := &recorder{}
					e := start(t, impl, nil, ab, h)
					world.Advance(5 * time.Second)
					h.take()
					require.NoError(t, e.Silent.Delete(context.Background(), "a", metav1.DeleteOptions{}))
					e.Srv.Compact()
					e.Srv.CloseWatches()
					world.Advance(2 * time.Minute)
					assert.Contains(t, h.take(), "delete-tombstone ns/a")
					assert.Equal(t, e.View(t), e.cacheView())
				})
			},
		},
		{
			Name: "RelistReportsWhatTheWatchMissed",
			Want: "after a relist, objects created or changed while the watch was down reach the handlers as OnAdd and OnUpdate",
			Doc:  docResync,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					h := &recorder{}
					e := start(t, impl, nil, ab, h)
					world.Advance(5 * time.Second)
					before := e.View(t)
					h.take()
					_, err := e.Silent.Create(context.Background(), world.ConfigMap("ns", "z"), metav1.CreateOptions{})
					require.NoError(t, err)
					_, err = e.Silent.Patch(context.Background(), "b", types.MergePatchType, []byte(`{"data":{"k":"2"}}`), metav1.PatchOptions{})
					require.NoError(t, err)
					e.Srv.Compact()
					e.Srv.CloseWatches()
					world.Advance(2 * time.Minute)
					after := e.View(t)
					got := h.take()
					assert.Contains(t, got, "add z "+after["z"])
					assert.Contains(t, got, "update b "+before["b"]+"->"+after["b"])
					assert.Equal(t, after, e.cacheView())
				})
			},
		},
		{
			Name: "SlowHandlerDoesNotHoldUpOthers",
			Want: "a handler stuck in a call does not delay the other handlers or the cache; once it returns, it gets everything, in order",
			Doc:  docListeners,
			Test: func(t *testing.T) { slowHandler(t, impl) },
		},
		{
			Name: "LateHandlerGetsTheCacheFirst",
			Want: "a handler added to a running, synced informer first gets every cached object as OnAdd(obj, true), exactly once, then live events; the handlers already there get no second copy",
			Doc:  docSync,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					early := &recorder{}
					e := start(t, impl, nil, []string{"a", "b", "c"}, early)
					early.take()
					late := &recorder{}
					require.NoError(t, e.inf.AddEventHandler(late))
					world.Advance(0)
					assert.ElementsMatch(t, initialAdds(e.View(t)), late.take())
					assert.Empty(t, early.take(), "the replay is for the new handler only")
					e.Create(t, "d")
					world.Advance(0)
					assert.Equal(t, []string{"add d " + e.View(t)["d"]}, late.take())
				})
			},
		},
		{
			Name: "LateHandlerMissesNoChangeInFlight",
			Want: "a handler added while the loop has popped a change but not yet cached it still ends with that change: listing the cache for the replay and registering the handler are one step the loop cannot get between (the grader holds the loop there)",
			Doc:  docSync,
			Test: func(t *testing.T) { grade.Bubble(t, func(t *testing.T) { lateHandlerDuringAChange(t, impl) }) },
		},
		{
			Name: "OneObjectsChangesArriveInOrder",
			Want: "a burst of updates to one object reaches a handler in resourceVersion order, ending at the server's version",
			Doc:  docLoop,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					h := &recorder{}
					e := start(t, impl, nil, ab, h)
					h.take()
					for i := range 10 {
						e.patch(t, "a", strconv.Itoa(i))
					}
					world.Advance(0)
					got := h.take()
					require.NotEmpty(t, got)
					last := 0
					for _, line := range got {
						var name string
						var oldRV, newRV int
						_, err := fmt.Sscanf(line, "update %s %d->%d", &name, &oldRV, &newRV)
						require.NoError(t, err, "not an update of a: %q", line)
						assert.Greater(t, newRV, last, "out of order: %v", got)
						last = newRV
					}
					assert.Equal(t, e.View(t)["a"], strconv.Itoa(last))
				})
			},
		},
		{
			Name: "SafeToUseWhileRunning",
			Want: "handlers added from other goroutines while objects change, HasSynced and the cache read meanwhile: no data race (grade with -race), and every handler ends with the server's state, each object added once",
			Doc:  docSync,
			Test: func(t *testing.T) { concurrentUse(t, impl) },
		},
		{
			Name: "RunStopsEverything",
			Want: "cancelling Run's context makes Run return, with every goroutine it started ended, and handlers hear nothing more",
			Doc:  docListeners,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					h := &recorder{}
					e := start(t, impl, nil, ab, h)
					h.take()
					e.cancel()
					synctest.Wait()
					select {
					case <-e.done:
					default:
						t.Fatal("Run did not return after its context was cancelled")
					}
					e.Create(t, "after")
					world.Advance(time.Minute)
					assert.Empty(t, h.take())
				})
			},
		},
	}
}

// slowHandlerBacklog is how many changes pile up behind a stuck handler in
// SlowHandlerDoesNotHoldUpOthers: more than a fixed-size channel a listener
// might use instead of a growing buffer.
const slowHandlerBacklog = 2000

// rvNumber is a resourceVersion as a number, to compare two of them.
func rvNumber(rv string) int {
	v, _ := strconv.Atoi(rv)
	return v
}
