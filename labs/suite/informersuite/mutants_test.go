package informersuite_test

import (
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/informersuite"
	"github.com/informerlab/informerlab/reflector"
)

// handlerFuncs is a ResourceEventHandler of three functions.
type handlerFuncs struct {
	add    func(obj any, isInInitialList bool)
	update func(oldObj, newObj any)
	delete func(obj any)
}

func (f handlerFuncs) OnAdd(obj any, isInInitialList bool) { f.add(obj, isInInitialList) }
func (f handlerFuncs) OnUpdate(oldObj, newObj any)         { f.update(oldObj, newObj) }
func (f handlerFuncs) OnDelete(obj any)                    { f.delete(obj) }

// oneListener calls every handler from one registration, one after the
// other: a slow handler holds up the rest, and a late one misses the cache.
type oneListener struct {
	informersuite.Informer
	once     sync.Once
	mu       sync.Mutex
	handlers []informer.ResourceEventHandler
}

func (o *oneListener) AddEventHandler(h informer.ResourceEventHandler) error {
	o.mu.Lock()
	o.handlers = append(o.handlers, h)
	o.mu.Unlock()
	var err error
	o.once.Do(func() {
		err = o.Informer.AddEventHandler(handlerFuncs{
			add:    func(obj any, initial bool) { o.each(func(h informer.ResourceEventHandler) { h.OnAdd(obj, initial) }) },
			update: func(old, obj any) { o.each(func(h informer.ResourceEventHandler) { h.OnUpdate(old, obj) }) },
			delete: func(obj any) { o.each(func(h informer.ResourceEventHandler) { h.OnDelete(obj) }) },
		})
	})
	return err
}

func (o *oneListener) each(call func(informer.ResourceEventHandler)) {
	o.mu.Lock()
	hs := append([]informer.ResourceEventHandler(nil), o.handlers...)
	o.mu.Unlock()
	for _, h := range hs {
		call(h)
	}
}

// noTombstones drops the deletions a relist found.
type noTombstones struct{ informersuite.Informer }

func (n noTombstones) AddEventHandler(h informer.ResourceEventHandler) error {
	return n.Informer.AddEventHandler(handlerFuncs{
		add:    h.OnAdd,
		update: h.OnUpdate,
		delete: func(obj any) {
			if _, ok := obj.(deltafifo.DeletedFinalStateUnknown); !ok {
				h.OnDelete(obj)
			}
		},
	})
}

var quiet = slog.New(slog.DiscardHandler)

// mutant is one entry of the catalogue: a mistake and the wrong informer
// that makes it.
type mutant struct {
	grade.Mistake
	impl informersuite.Impl
}

// learner is the learner's informer of learner_test.go with the mistakes m.
func learner(m mistakes) informersuite.Impl {
	return informersuite.Impl{New: func(lw reflector.ListerWatcher) informersuite.Informer { return newInf(lw, m) }}
}

// catalogue is the mistakes a learner plausibly makes in lab 6, reading the
// README, the skeleton and the hints, and the behaviours that report each.
// A mistake found later belongs here.
var catalogue = []mutant{
	{Mistake: grade.Mistake{Name: "one-listener",
		What:    "every handler is called from one registration, one after the other: a slow handler holds up the rest, and a late one misses the cache",
		Catches: []string{"SlowHandlerDoesNotHoldUpOthers", "LateHandlerGetsTheCacheFirst"}},
		impl: informersuite.Impl{New: func(lw reflector.ListerWatcher) informersuite.Informer {
			return &oneListener{Informer: informersuite.Reference.New(lw)}
		}}},
	{Mistake: grade.Mistake{Name: "no-tombstones",
		What:    "deletions a relist found are dropped instead of passed on as tombstones",
		Catches: []string{"MissedDeleteArrivesAsATombstone"}},
		impl: informersuite.Impl{New: func(lw reflector.ListerWatcher) informersuite.Informer {
			return noTombstones{informersuite.Reference.New(lw)}
		}}},
	{Mistake: grade.Mistake{Name: "late-handler-no-replay",
		What:    "a handler added to a running informer only hears of changes from then on, never of what is cached",
		Catches: []string{"LateHandlerGetsTheCacheFirst"}},
		impl: learner(mistakes{lateNoReplay: true})},
	{Mistake: grade.Mistake{Name: "replay-to-every-handler",
		What:    "the cache replay for a late handler is sent through the normal notify path, to every handler",
		Catches: []string{"LateHandlerGetsTheCacheFirst"}},
		impl: learner(mistakes{replayToAll: true})},
	{Mistake: grade.Mistake{Name: "handlers-called-inline",
		What:    "the process loop calls every handler itself, with no listener goroutines",
		Catches: []string{"SlowHandlerDoesNotHoldUpOthers"}},
		impl: learner(mistakes{callHandlersInline: true})},
	{Mistake: grade.Mistake{Name: "fixed-buffer",
		What:    "a listener is one goroutine reading a buffered channel of 100: once a slow handler lets it fill, the loop blocks",
		Catches: []string{"SlowHandlerDoesNotHoldUpOthers"}},
		impl: learner(mistakes{fixedBuffer: true})},
	{Mistake: grade.Mistake{Name: "goroutine-per-notification",
		What:    "a listener calls its handler on a new goroutine for each notification, so calls overtake each other",
		Catches: []string{"SlowHandlerDoesNotHoldUpOthers"}},
		impl: learner(mistakes{goPerNotification: true})},
	{Mistake: grade.Mistake{Name: "old-is-new",
		What:    "OnUpdate's old object is read from the cache after the cache was updated, so old and new are the same",
		Catches: []string{"LiveEventsReachHandlersInOrder", "RelistReportsWhatTheWatchMissed"}},
		impl: learner(mistakes{oldIsNew: true})},
	{Mistake: grade.Mistake{Name: "relist-as-add",
		What:    "a Replaced delta is always an OnAdd, even for an object already cached",
		Catches: []string{"RelistReportsWhatTheWatchMissed"}},
		impl: learner(mistakes{relistAsAdd: true})},
	{Mistake: grade.Mistake{Name: "initial-always-false",
		What:    "OnAdd's isInInitialList is always false",
		Catches: []string{"InitialListArrivesAsInitialAdds"}},
		impl: learner(mistakes{initialAlwaysFalse: true})},
	{Mistake: grade.Mistake{Name: "initial-always-true",
		What:    "OnAdd's isInInitialList is always true",
		Catches: []string{"LiveEventsReachHandlersInOrder", "RelistReportsWhatTheWatchMissed"}},
		impl: learner(mistakes{initialAlwaysTrue: true})},
	{Mistake: grade.Mistake{Name: "tombstone-unwrapped",
		What:    "OnDelete gets the object inside a tombstone, so handlers cannot tell a missed deletion from a seen one",
		Catches: []string{"MissedDeleteArrivesAsATombstone"}},
		impl: learner(mistakes{unwrapTombstone: true})},
	{Mistake: grade.Mistake{Name: "queue-never-closed",
		What:    "Run does not close the queue when its context ends, so the process loop waits in Pop forever and Run never returns",
		Catches: []string{"RunStopsEverything"}},
		impl: learner(mistakes{fifoNeverClosed: true})},
	{Mistake: grade.Mistake{Name: "synced-when-running",
		What:    "HasSynced is true as soon as Run has started, before the first list succeeded",
		Catches: []string{"HasSyncedWaitsForTheInitialList"}},
		impl: learner(mistakes{syncedWhenRunning: true})},
	{Mistake: grade.Mistake{Name: "listeners-never-stop",
		What:    "the listeners' goroutines are started without Run's context and never end",
		Catches: []string{"RunStopsEverything"}},
		impl: learner(mistakes{listenersIgnoreStop: true})},
	{Mistake: grade.Mistake{Name: "unguarded-synced",
		What:    "the loop copies the queue's HasSynced into a plain field, which HasSynced reads without a lock",
		Catches: []string{"SafeToUseWhileRunning"}, NeedsRace: true},
		impl: learner(mistakes{unguardedSynced: true})},
	{Mistake: grade.Mistake{Name: "notify-before-cache",
		What:    "the process loop tells the handlers first and writes the cache after, so a handler that reads the cache may not find the change",
		Catches: []string{"CacheIsUpdatedBeforeHandlersAreCalled"}},
		impl: learner(mistakes{notifyBeforeCache: true})},
	{Mistake: grade.Mistake{Name: "late-snapshot-unlocked",
		What:    "AddEventHandler lists the cache for the replay before it takes the lock the loop holds, so a change written in between reaches neither the replay nor the new handler",
		Catches: []string{"LateHandlerMissesNoChangeInFlight"}},
		impl: learner(mistakes{snapshotUnlocked: true})},
	{Mistake: grade.Mistake{Name: "apply-after-pop",
		What:    "the loop takes the deltas out of Pop and applies them after Pop returned, so HasSynced turns true before the cache holds the last listed object",
		Catches: []string{"HasSyncedOnlyOnceTheCacheHoldsTheList"}},
		impl: learner(mistakes{applyAfterPop: true})},
}

func TestHelperMutant(t *testing.T) {
	impls := map[string]informersuite.Impl{"learner": learner(mistakes{})}
	for _, m := range catalogue {
		impls[m.Name] = m.impl
	}
	grade.GradeMutant(t, informersuite.Behaviours, impls)
}

// TestALearnersInformerPasses: an informer written from the README's
// hints, not informerlab's, passes every behaviour.
func TestALearnersInformerPasses(t *testing.T) {
	assert.Empty(t, grade.FailedInChild(t, "TestHelperMutant", "learner"))
}

// TestSuiteCatchesEveryMistake grades every mutant of the catalogue, each
// within the grader's watchdog, and checks that each behaviour its entry
// names is reported failed.
func TestSuiteCatchesEveryMistake(t *testing.T) {
	mistakes := make([]grade.Mistake, len(catalogue))
	for i, m := range catalogue {
		mistakes[i] = m.Mistake
	}
	grade.CatchesMistakes(t, "TestHelperMutant", mistakes)
}
