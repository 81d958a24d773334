package reflectorsuite

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

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
	"github.com/informerlab/informerlab/reflector"
)

// Reflector is the API the suite grades.
type Reflector interface {
	// Run lists, watches and recovers until ctx is cancelled, then
	// returns, leaving no goroutine or watch behind.
	Run(ctx context.Context)
	// LastSyncResourceVersion is the resourceVersion of the last list,
	// event or bookmark seen.
	LastSyncResourceVersion() string
}

// Impl is how an implementation plugs in.
type Impl struct {
	// New returns a Reflector that keeps store in step with lw. It must
	// not start anything: Run does.
	New func(lw reflector.ListerWatcher, store reflector.Store) Reflector
}

// Reference is informerlab's own implementation: what
// reflector/suite_test.go grades, and what labs/5-reflector wires in under
// the labs_reference build tag.
var Reference = Impl{
	New: func(lw reflector.ListerWatcher, store reflector.Store) Reflector {
		return reflector.New(lw, nil, store, reflector.Options{Logger: slog.New(slog.DiscardHandler)})
	},
}

const (
	docStates = "docs/reflector.md#1-the-state-machine"
	docRVs    = "docs/reflector.md#2-resourceversion-rules"
	docErrors = "docs/reflector.md#3-the-error-taxonomy-and-why-it-is-that-way"
)

// resumedAtOnce ends the watch three times: after it lived five seconds
// and had an event, after five quiet seconds, and at the very instant it
// opened but after an event. Each time the next watch opens at the same
// instant, from the last resourceVersion.
func resumedAtOnce(t *testing.T, e *env) {
	for i, step := range []struct {
		wait  time.Duration
		event bool
	}{{5 * time.Second, true}, {5 * time.Second, false}, {0, true}} {
		world.Advance(step.wait)
		if step.event {
			e.Create(t, fmt.Sprintf("n%d", i))
			world.Advance(0)
		}
		watches, lastRV := e.lw.count("watch"), e.RV()
		e.Srv.CloseWatches()
		world.Advance(0)
		calls := e.lw.all()
		if assert.Equal(t, watches+1, e.lw.count("watch"), "end %d (lived %v, event %v): watches opened at that instant: %v", i+1, step.wait, step.event, calls) {
			assert.Equal(t, `watch rv="`+lastRV+`"`, calls[len(calls)-1], "end %d: the new watch", i+1)
		}
	}
	assert.Equal(t, 1, e.lw.count("list"), "calls: %v", e.lw.all())
}

// Behaviours returns the graded behaviours of a Reflector. Each runs in a
// testing/synctest bubble against an in-memory fakeapi server: backoff
// delays pass on a fake clock.
func Behaviours(impl Impl) []grade.Behaviour {
	// inBubble runs fn with a started env.
	inBubble := func(t *testing.T, prepare func(*env), objects []string, fn func(t *testing.T, e *env)) {
		t.Helper()
		grade.Bubble(t, func(t *testing.T) {
			fn(t, start(t, impl, prepare, objects...))
		})
	}
	ab := []string{"a", "b"}
	return []grade.Behaviour{
		{
			Name: "ListReplacesTheStore",
			Want: "Run first lists, then calls store.Replace once with every listed object and the list's resourceVersion",
			Doc:  docStates,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					assert.Equal(t, []string{"replace rv=" + e.RV() + " [a b]"}, e.store.writes())
					assert.Equal(t, e.View(t), e.store.view())
					assert.Equal(t, e.RV(), e.r.LastSyncResourceVersion())
				})
			},
		},
		{
			Name: "WatchStartsAtTheListResourceVersion",
			Want: "after the list, one watch opens from exactly the list's resourceVersion, so no change between the two is lost",
			Doc:  docRVs,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					calls := e.lw.all()
					require.Len(t, calls, 2, "one list, one watch: %v", calls)
					assert.Regexp(t, `^list rv=`, calls[0])
					assert.Equal(t, `watch rv="`+e.RV()+`"`, calls[1])
				})
			},
		},
		{
			Name: "WatchEventsReachTheStore",
			Want: "ADDED, MODIFIED and DELETED events become store.Add, Update and Delete, in the order the server sent them",
			Doc:  docStates,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					e.store.writes()
					e.Create(t, "c")
					_, err := e.CMs.Patch(context.Background(), "a", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
					require.NoError(t, err)
					require.NoError(t, e.CMs.Delete(context.Background(), "b", metav1.DeleteOptions{}))
					deletedAt := e.RV()
					world.Advance(0)
					view := e.View(t)
					assert.Equal(t, []string{"add c " + view["c"], "update a " + view["a"], "delete b " + deletedAt}, e.store.writes())
					assert.Equal(t, view, e.store.view())
				})
			},
		},
		{
			Name: "ResourceVersionFollowsEvents",
			Want: "LastSyncResourceVersion moves to the resourceVersion of each event applied",
			Doc:  docRVs,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					for i := range 3 {
						e.Create(t, "n"+strconv.Itoa(i))
						world.Advance(0)
						assert.Equal(t, e.RV(), e.r.LastSyncResourceVersion(), "after create %d", i)
					}
				})
			},
		},
		{
			Name: "ClosedWatchResumesWithoutRelist",
			Want: "when the server ends a watch cleanly, the Reflector watches again from its last resourceVersion, without listing",
			Doc:  docStates,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					e.Create(t, "c")
					world.Advance(0)
					lastRV := e.RV()
					e.Srv.CloseWatches()
					world.Advance(time.Minute)
					assert.Equal(t, 1, e.lw.count("list"), "calls: %v", e.lw.all())
					assert.Contains(t, e.lw.all(), `watch rv="`+lastRV+`"`)
					e.Create(t, "d")
					world.Advance(0)
					assert.Equal(t, e.View(t), e.store.view(), "events flow on the new watch")
				})
			},
		},
		{
			Name: "ExpiredResourceVersionRelists",
			Want: "when the re-watch is refused with 410 Gone (history compacted), the Reflector lists again and Replace brings the store up to date",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					lastRV := e.r.LastSyncResourceVersion()
					require.NoError(t, e.Silent.Delete(context.Background(), "a", metav1.DeleteOptions{}))
					_, err := e.Silent.Create(context.Background(), world.ConfigMap("ns", "z"), metav1.CreateOptions{})
					require.NoError(t, err)
					e.Srv.Compact()
					e.Srv.CloseWatches()
					world.Advance(2 * time.Minute)
					calls := e.lw.all()
					assert.Equal(t, 2, e.lw.count("list"), "calls: %v", calls)
					assert.Contains(t, calls, `watch rv="`+lastRV+`"`, "it tried to resume first")
					assert.Equal(t, e.View(t), e.store.view(), "the relist revealed the silent writes")
				})
			},
		},
		{
			Name: "RelistWaitsABackoffAfterExpiry",
			Want: "after a 410 Gone the Reflector backs off before it lists again: no relist at the moment of the 410",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					require.NoError(t, e.Silent.Delete(context.Background(), "a", metav1.DeleteOptions{}))
					e.Srv.Compact()
					e.Srv.CloseWatches()
					world.Advance(0)
					assert.Equal(t, 1, e.lw.count("list"), "relisted at once after the 410: %v", e.lw.all())
					world.Advance(2 * time.Minute)
					assert.Equal(t, 2, e.lw.count("list"), "relisted once the backoff was over: %v", e.lw.all())
					assert.Equal(t, e.View(t), e.store.view())
				})
			},
		},
		{
			Name: "RelistAsksForTheLastResourceVersion",
			Want: "a relist asks for the last resourceVersion seen, not \"0\": a server lagging behind must not take the store back in time",
			Doc:  docRVs,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					e.Create(t, "c")
					world.Advance(0)
					lastRV := e.RV()
					e.Srv.InjectWatchError(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone,
						Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
					world.Advance(2 * time.Minute)
					calls := e.lw.all()
					require.Equal(t, 2, e.lw.count("list"), "calls: %v", calls)
					assert.Contains(t, calls, `list rv="`+lastRV+`"`, "the relist, after %s was seen", lastRV)
				})
			},
		},
		{
			Name: "TooManyRequestsRewatchesWithoutRelist",
			Want: "a 429 Too Many Requests, refusing a watch or sent as an ERROR event, makes the Reflector back off and watch again, without listing",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					require.NoError(t, e.Srv.FailNext("watch", 2, http.StatusTooManyRequests))
					e.Srv.CloseWatches()
					world.Advance(0)
					assert.LessOrEqual(t, e.lw.count("watch"), 2, "re-watched at once after a 429: %v", e.lw.all())
					world.Advance(time.Minute)
					e.Srv.InjectWatchError(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusTooManyRequests,
						Reason: metav1.StatusReasonTooManyRequests, Message: "slow down"})
					world.Advance(0)
					watches := e.lw.count("watch")
					world.Advance(time.Minute)
					assert.Greater(t, e.lw.count("watch"), watches, "watching again after the 429 event: %v", e.lw.all())
					assert.Equal(t, 1, e.lw.count("list"), "a 429 is no reason to relist: %v", e.lw.all())
					e.Create(t, "c")
					world.Advance(0)
					assert.Equal(t, e.View(t), e.store.view(), "events flow on the new watch")
				})
			},
		},
		{
			Name: "CleanWatchEndIsResumedAtOnce",
			Want: "a watch the server ends cleanly after it lived (a second or more, or with events) is opened again at the same instant, every time; only one that ended at once with no event waits a backoff",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) { resumedAtOnce(t, e) })
				prepare := func(e *env) { e.lw.endAtOnce = true }
				inBubble(t, prepare, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					watches := e.lw.count("watch")
					e.Srv.CloseWatches()
					world.Advance(0)
					assert.Equal(t, watches+1, e.lw.count("watch"),
						"one re-watch at once after a watch that lived, then none at that instant after the new one ended at once with no event: %v", e.lw.all())
				})
			},
		},
		modelBehaviour(impl),
		{
			Name: "WatchThatEndsAtOnceIsBackedOff",
			Want: "a watch that ends as soon as it opens, every time, is retried after growing delays: a handful of calls in two minutes, not a hot loop",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				prepare := func(e *env) { e.lw.endAtOnce = true }
				inBubble(t, prepare, ab, func(t *testing.T, e *env) {
					e.Srv.CloseWatches()
					world.Advance(2 * time.Minute)
					calls := len(e.lw.all())
					assert.GreaterOrEqual(t, calls, 4, "it keeps trying: %v", e.lw.all())
					assert.LessOrEqual(t, calls, 20, "calls in two minutes against watches that end at once")
				})
			},
		},
		{
			Name: "EveryWatchIsStopped",
			Want: "the Reflector calls Stop on every watch it opened, before it opens the next and when Run returns, however the watch ended",
			Doc:  docStates,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					world.Advance(5 * time.Second)
					e.Srv.CloseWatches()
					world.Advance(time.Minute)
					e.Srv.InjectWatchError(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone,
						Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
					world.Advance(time.Minute)
					require.GreaterOrEqual(t, e.lw.count("watch"), 3, "calls: %v", e.lw.all())
					e.stop()
					unstopped, open := e.lw.stopProblems()
					assert.Empty(t, unstopped, "a watch opened while an earlier one was never stopped")
					assert.Zero(t, open, "watches left unstopped after Run returned")
				})
			},
		},
		{
			Name: "WatchErrorEventRelists",
			Want: "an ERROR event of 410 Expired on the watch makes the Reflector list again",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					_, err := e.Silent.Create(context.Background(), world.ConfigMap("ns", "hidden"), metav1.CreateOptions{})
					require.NoError(t, err)
					e.Srv.InjectWatchError(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone,
						Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
					world.Advance(2 * time.Minute)
					assert.Equal(t, 2, e.lw.count("list"), "calls: %v", e.lw.all())
					assert.Equal(t, e.View(t), e.store.view())
				})
			},
		},
		{
			Name: "FailedListIsRetried",
			Want: "a list that fails (500) is retried after a delay, not at once, until it succeeds",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				prepare := func(e *env) { require.NoError(t, e.Srv.FailNext("list", 2, http.StatusInternalServerError)) }
				inBubble(t, prepare, ab, func(t *testing.T, e *env) {
					assert.Equal(t, 1, e.lw.count("list"), "no retry without a delay: %v", e.lw.all())
					world.Advance(5 * time.Minute)
					assert.Equal(t, 3, e.lw.count("list"), "two failures, then success: %v", e.lw.all())
					assert.Equal(t, e.View(t), e.store.view())
				})
			},
		},
		{
			Name: "BackoffGrowsWhileTheServerIsDown",
			Want: "while every list fails, the delays between attempts grow: a handful of attempts in two minutes, not a hot loop",
			Doc:  docErrors,
			Test: func(t *testing.T) {
				prepare := func(e *env) {
					require.NoError(t, e.Srv.FailNext("list", 1000, http.StatusServiceUnavailable))
				}
				inBubble(t, prepare, ab, func(t *testing.T, e *env) {
					var at []time.Duration
					begin := time.Now()
					for range 120 {
						n := e.lw.count("list")
						world.Advance(time.Second)
						if e.lw.count("list") > n {
							at = append(at, time.Since(begin))
						}
					}
					require.GreaterOrEqual(t, len(at), 3, "retried at %v", at)
					assert.LessOrEqual(t, e.lw.count("list"), 15, "lists in two minutes; retried at %v", at)
					first, last := at[1]-at[0], at[len(at)-1]-at[len(at)-2]
					assert.Greater(t, last, first, "delays grow: retried at %v", at)
					require.NoError(t, e.Srv.FailNext("list", 0, http.StatusServiceUnavailable))
				})
			},
		},
		{
			Name: "RunReturnsWhenCancelled",
			Want: "cancelling Run's context makes Run return promptly, while watching and while backing off",
			Doc:  docStates,
			Test: func(t *testing.T) {
				inBubble(t, nil, ab, func(t *testing.T, e *env) {
					e.cancel()
					synctest.Wait()
					select {
					case <-e.done:
					default:
						t.Fatal("Run did not return after its context was cancelled (while watching)")
					}
				})
				prepare := func(e *env) { require.NoError(t, e.Srv.FailNext("list", 1000, http.StatusServiceUnavailable)) }
				inBubble(t, prepare, nil, func(t *testing.T, e *env) {
					world.Advance(time.Second)
					e.cancel()
					synctest.Wait()
					select {
					case <-e.done:
					default:
						t.Fatal("Run did not return after its context was cancelled (while backing off)")
					}
					require.NoError(t, e.Srv.FailNext("list", 0, http.StatusServiceUnavailable))
				})
			},
		},
		{
			Name: "LastSyncResourceVersionIsSafeToRead",
			Want: "LastSyncResourceVersion may be called from any goroutine while Run writes it (no data race: grade with -race) and catches up with the server",
			Doc:  docRVs,
			Test: func(t *testing.T) { concurrentReads(t, impl) },
		},
		{
			Name: "BookmarksMoveTheResourceVersion",
			Want: "the watch asks for bookmarks; a BOOKMARK event moves LastSyncResourceVersion and writes nothing to the store",
			Doc:  docRVs,
			Test: func(t *testing.T) {
				inBubble(t, nil, []string{"a"}, func(t *testing.T, e *env) {
					e.store.writes()
					_, err := e.Srv.Resource(world.ConfigMaps).Namespace("other").Create(context.Background(),
						world.ConfigMap("other", "elsewhere"), metav1.CreateOptions{})
					require.NoError(t, err)
					// fakeapi sends a watch that asked for bookmarks one
					// bookmark a minute, carrying the newest resourceVersion.
					world.Advance(time.Minute)
					assert.Equal(t, e.RV(), e.r.LastSyncResourceVersion(), "calls: %v", e.lw.all())
					assert.Empty(t, e.store.writes())
				})
			},
		},
	}
}
