package reflectorsuite_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
	"github.com/informerlab/informerlab/reflector"
)

var quiet = slog.New(slog.DiscardHandler)

// hotLoop lists until a list succeeds, never waiting in between, then
// replaces the store and waits for the end: what a first attempt at Run
// without a backoff looks like.
type hotLoop struct {
	lw    reflector.ListerWatcher
	store reflector.Store
}

func (h hotLoop) Run(ctx context.Context) {
	for ctx.Err() == nil {
		list, err := h.lw.List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			continue
		}
		items, _ := meta.ExtractList(list)
		objs := make([]any, len(items))
		for i, item := range items {
			objs[i] = item
		}
		rv, _ := meta.ListAccessor(list)
		_ = h.store.Replace(objs, rv.GetResourceVersion())
		<-ctx.Done()
	}
}

func (hotLoop) LastSyncResourceVersion() string { return "" }

// mutant is one entry of the catalogue: a mistake and the wrong Reflector
// that makes it.
type mutant struct {
	grade.Mistake
	impl reflectorsuite.Impl
}

// learner is the learner's Reflector of learner_test.go with the mistakes m.
func learner(m mistakes) reflectorsuite.Impl {
	return reflectorsuite.Impl{New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
		return newRefl(lw, store, m)
	}}
}

// catalogue is the mistakes a learner plausibly makes in lab 5, reading the
// README, the skeleton and the hints, and the behaviours that report each.
// A mistake found later belongs here.
var catalogue = []mutant{
	{Mistake: grade.Mistake{Name: "watch-from-now",
		What:    "every watch asks for resourceVersion \"\" (from now), losing what changed since the list",
		Catches: []string{"WatchStartsAtTheListResourceVersion"}},
		impl: learner(mistakes{watchFromEmpty: true})},
	{Mistake: grade.Mistake{Name: "hot-loop",
		What:    "a failed list is retried at once, forever",
		Catches: []string{"FailedListIsRetried", "BackoffGrowsWhileTheServerIsDown"}},
		impl: reflectorsuite.Impl{New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
			return hotLoop{lw: lw, store: store}
		}}},
	{Mistake: grade.Mistake{Name: "fixed-backoff",
		What:    "every retry waits the same second: a steady hammering of a server that is down",
		Catches: []string{"BackoffGrowsWhileTheServerIsDown"}},
		impl: learner(mistakes{fixedBackoff: true})},
	{Mistake: grade.Mistake{Name: "tiny-backoff",
		What:    "informerlab's Reflector with a fixed 10ms delay: a hot loop against a server that is down",
		Catches: []string{"BackoffGrowsWhileTheServerIsDown"}},
		impl: reflectorsuite.Impl{New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
			b := reflector.Backoff{Initial: 10 * time.Millisecond, Factor: 1, Cap: 10 * time.Millisecond}
			return reflector.New(lw, nil, store, reflector.Options{Logger: quiet, Backoff: b})
		}}},
	{Mistake: grade.Mistake{Name: "relist-at-once",
		What:    "after a 410 the Reflector lists again at once: Hint 1's backoff is only applied to failed lists",
		Catches: []string{"RelistWaitsABackoffAfterExpiry"}},
		impl: learner(mistakes{relistAtOnce: true})},
	{Mistake: grade.Mistake{Name: "relist-at-zero",
		What:    "every list, the relists too, asks for resourceVersion \"0\"",
		Catches: []string{"RelistAsksForTheLastResourceVersion"}},
		impl: learner(mistakes{relistAtZero: true})},
	{Mistake: grade.Mistake{Name: "429-relists",
		What:    "every watch error relists, a 429 Too Many Requests too",
		Catches: []string{"TooManyRequestsRewatchesWithoutRelist"}},
		impl: learner(mistakes{everyErrorRelists: true})},
	{Mistake: grade.Mistake{Name: "short-watch-hot-loop",
		What:    "a watch that ends cleanly is re-watched at once, however short it was: a hot loop against a server that refuses watches",
		Catches: []string{"WatchThatEndsAtOnceIsBackedOff"}},
		impl: learner(mistakes{noShortWatchBackoff: true})},
	{Mistake: grade.Mistake{Name: "reset-backoff-on-list",
		What:    "the backoff starts again from its first delay after every successful list, so list, short watch, list... never slows down",
		Catches: []string{"WatchThatEndsAtOnceIsBackedOff"}},
		impl: learner(mistakes{resetOnList: true})},
	{Mistake: grade.Mistake{Name: "unguarded-resource-version",
		What:    "the last resourceVersion is a plain string field, written by Run and read by LastSyncResourceVersion with no lock",
		Catches: []string{"LastSyncResourceVersionIsSafeToRead"}, NeedsRace: true},
		impl: learner(mistakes{unguardedRV: true})},
	{Mistake: grade.Mistake{Name: "watch-never-stopped",
		What:    "a watch that ended is abandoned, never stopped: each re-watch leaks a connection",
		Catches: []string{"EveryWatchIsStopped"}},
		impl: learner(mistakes{neverStopWatch: true})},
	{Mistake: grade.Mistake{Name: "relist-on-close",
		What:    "a watch the server closed cleanly makes the Reflector list again",
		Catches: []string{"ClosedWatchResumesWithoutRelist"}},
		impl: learner(mistakes{relistOnClose: true})},
	{Mistake: grade.Mistake{Name: "ignore-bookmarks",
		What:    "BOOKMARK events are skipped, so a quiet watch resumes from an old resourceVersion",
		Catches: []string{"BookmarksMoveTheResourceVersion"}},
		impl: learner(mistakes{ignoreBookmarks: true})},
	{Mistake: grade.Mistake{Name: "resource-version-from-list-only",
		What:    "only the list's resourceVersion is remembered, so every re-watch replays from the list",
		Catches: []string{"ResourceVersionFollowsEvents", "ClosedWatchResumesWithoutRelist", "RelistAsksForTheLastResourceVersion"}},
		impl: learner(mistakes{rvFromListOnly: true})},
	{Mistake: grade.Mistake{Name: "ignore-error-events",
		What:    "an ERROR event is skipped like an unknown event type, so a 410 on the stream is never acted on",
		Catches: []string{"WatchErrorEventRelists", "RelistAsksForTheLastResourceVersion"}},
		impl: learner(mistakes{ignoreErrorEvents: true})},
	{Mistake: grade.Mistake{Name: "uncancellable-backoff",
		What:    "the backoff is a time.Sleep, so Run waits it out after its context is cancelled",
		Catches: []string{"RunReturnsWhenCancelled"}},
		impl: learner(mistakes{uncancellableBackoff: true})},
	{Mistake: grade.Mistake{Name: "backoff-after-every-close",
		What:    "every watch the server ends cleanly is followed by a backoff, not only one that ended at once with no event",
		Catches: []string{"CleanWatchEndIsResumedAtOnce", "MatchesInformerlabOnRandomOutcomes"}},
		impl: learner(mistakes{backoffEveryClose: true})},
}

func TestHelperMutant(t *testing.T) {
	impls := map[string]reflectorsuite.Impl{"learner": learner(mistakes{})}
	for _, m := range catalogue {
		impls[m.Name] = m.impl
	}
	grade.GradeMutant(t, reflectorsuite.Behaviours, impls)
}

// TestALearnersReflectorPasses: a Reflector written from the README's
// hints, not informerlab's, passes every behaviour.
func TestALearnersReflectorPasses(t *testing.T) {
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
