package informersuite

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
)

// newProbedEnv is newEnv with the informer watching through a probedLW of
// p: the process loop stops where p's hook says.
func newProbedEnv(t *testing.T, impl Impl, p *probe, objects []string) *env {
	t.Helper()
	e := &env{World: world.New(t, objects...)}
	e.inf = impl.New(probedLW{ListerWatcher: e.CMs, probe: p})
	return e
}

// cacheBeforeHandlers is CacheIsUpdatedBeforeHandlersAreCalled: three live
// changes, and for each the process loop is held, before it writes the
// change to the cache, until the handler has been called with it (or a
// few thousand turns of the processor have passed). An informer that
// notifies first has its handler called then, and the handler finds the
// change missing from the cache; one that writes first is simply held a
// little. Every handler call checks the cache as it happens.
func cacheBeforeHandlers(t *testing.T, impl Impl) {
	p := &probe{}
	var mu sync.Mutex // guards problems, called
	var problems []string
	called := map[string]bool{}
	e := newProbedEnv(t, impl, p, []string{"a", "b"})
	h := &recorder{seen: func(verb string, obj any) {
		name, rv := world.NameRV(obj)
		cached, ok, _ := e.inf.GetIndexer().GetByKey("ns/" + name)
		mu.Lock()
		defer mu.Unlock()
		called[name] = true
		switch {
		case verb == "delete" && ok:
			problems = append(problems, "OnDelete "+name+": still cached")
		case verb != "delete" && !ok:
			problems = append(problems, "On"+verb+" "+name+": not cached yet")
		case verb != "delete":
			if _, cachedRV := world.NameRV(cached); rvNumber(cachedRV) < rvNumber(rv) {
				problems = append(problems, "On"+verb+" "+name+" "+rv+": cache has older "+cachedRV)
			}
		}
	}}
	e.run(t, h)
	h.take()
	mu.Lock()
	clear(called)
	mu.Unlock()
	p.setHook(func(name, _ string) {
		yieldUntil(func() bool {
			mu.Lock()
			defer mu.Unlock()
			return called[name]
		}, yieldSpins)
	})

	e.Create(t, "c")
	e.patch(t, "a", "1")
	require.NoError(t, e.CMs.Delete(context.Background(), "b", metav1.DeleteOptions{}))
	world.Advance(0)
	p.setHook(nil)

	assert.Len(t, h.take(), 3, "an add, an update, a delete")
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, problems, "what handlers found in the cache when they were called")
}

// lateHandlerDuringAChange is LateHandlerMissesNoChangeInFlight: the
// process loop is held after it popped an update of a and before it wrote
// it to the cache, a handler is added meanwhile, and the loop goes on a
// moment later. A correct informer holds the registration off until the
// loop is done with the change (or holds the loop off until the
// registration is done): either way the new handler ends with a's update.
// One that lists the cache before taking the lock the loop holds replays
// the old a, then misses the update, which went to the handlers already
// there.
func lateHandlerDuringAChange(t *testing.T, impl Impl) {
	p := &probe{}
	e := newProbedEnv(t, impl, p, []string{"a", "b"})
	early := &recorder{}
	e.run(t, early)
	early.take()
	paused := make(chan struct{})
	var adding atomic.Bool
	var once sync.Once
	p.setHook(func(name, _ string) {
		first := false
		once.Do(func() {
			first = true
			close(paused)
		})
		if !first {
			return
		}
		// Wait for AddEventHandler to be called, then give it time to
		// get as far as it can while the loop stands here.
		yieldUntil(adding.Load, 50*yieldSpins)
		yieldUntil(func() bool { return false }, 5*yieldSpins)
	})

	e.patch(t, "a", "1")
	select {
	case <-paused:
	case <-time.After(time.Second):
		// The loop never asked the object for its key from inside a Pop:
		// the handler is added with no change in flight.
	}
	adding.Store(true)
	late := &recorder{}
	require.NoError(t, e.inf.AddEventHandler(late))
	world.Advance(0)
	p.setHook(nil)

	view, problems := replay(late.take())
	assert.Empty(t, problems, "the late handler's calls")
	assert.Equal(t, e.View(t), view, "what the late handler was told (name → resourceVersion), against the server")
	early.take()
}

// syncedOnlyWithTheList is HasSyncedOnlyOnceTheCacheHoldsTheList: an index
// function, which the cache calls on every write, asks HasSynced each
// time; no object of the initial list may be written after HasSynced said
// true. HasSynced is asked on a goroutine of its own, so an informer whose
// HasSynced waits for a lock its loop holds is not taken for a deadlock:
// an answer that does not come within a few thousand turns of the
// processor counts as false.
func syncedOnlyWithTheList(t *testing.T, impl Impl) {
	e := newEnv(t, impl, nil, []string{"a", "b", "c", "d"})
	var mu sync.Mutex // guards late
	var late []string
	var answers sync.WaitGroup
	syncedNow := func() bool {
		answer := make(chan bool, 1)
		answers.Go(func() { answer <- e.inf.HasSynced() })
		var synced bool
		yieldUntil(func() bool {
			select {
			case synced = <-answer:
				return true
			default:
				return false
			}
		}, yieldSpins)
		return synced
	}
	require.NoError(t, e.inf.GetIndexer().AddIndexers(indexer.Indexers{
		"grader-synced": func(obj any) ([]string, error) {
			if syncedNow() {
				name, _ := world.NameRV(obj)
				mu.Lock()
				late = append(late, name)
				mu.Unlock()
			}
			return nil, nil
		},
	}))

	e.run(t)
	answers.Wait()

	require.True(t, e.inf.HasSynced(), "after the list")
	assert.Equal(t, e.View(t), e.cacheView())
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, late, "objects of the initial list written to the cache after HasSynced said true")
}
