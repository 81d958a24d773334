package reflector_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// Cancelling Run's context ends it at once from every state: the open watch
// is stopped, the resync goroutine exits, and no goroutine is left (the
// synctest bubble would report one).
// Diagram: step 1. client-go: Reflector.RunWithContext
func TestCancelStopsRunPromptlyFromEveryState(t *testing.T) {
	cases := map[string]struct {
		opts     reflector.Options
		reach    func(t *testing.T, h *harness) []*watch.RaceFreeFakeWatcher
		lastEdge string
	}{
		"listing": {
			reach: func(t *testing.T, h *harness) []*watch.RaceFreeFakeWatcher {
				h.lw.expectList(t, "0", 500) // never answered
				return nil
			},
			lastEdge: "listing -> stopped",
		},
		"watching": {
			reach: func(t *testing.T, h *harness) []*watch.RaceFreeFakeWatcher {
				return []*watch.RaceFreeFakeWatcher{h.sync(t, "10")}
			},
			lastEdge: "watching -> stopped",
		},
		"backing off to relist": {
			reach: func(t *testing.T, h *harness) []*watch.RaceFreeFakeWatcher {
				w := h.sync(t, "10")
				w.Error(expired())
				return []*watch.RaceFreeFakeWatcher{w}
			},
			lastEdge: "backing off to relist -> stopped",
		},
		"backing off to re-watch": {
			reach: func(t *testing.T, h *harness) []*watch.RaceFreeFakeWatcher {
				w := h.sync(t, "10")
				w.Error(&apierrors.NewTooManyRequests("slow down", 1).ErrStatus)
				return []*watch.RaceFreeFakeWatcher{w}
			},
			lastEdge: "backing off to re-watch -> stopped",
		},
		"watch-listing": {
			opts: reflector.Options{UseWatchList: true},
			reach: func(t *testing.T, h *harness) []*watch.RaceFreeFakeWatcher {
				w := h.lw.next(t).respondWatch()
				w.Add(pod("a", "1"))
				return []*watch.RaceFreeFakeWatcher{w}
			},
			lastEdge: "watch-listing -> stopped",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tc.opts.ResyncPeriod = time.Minute
				h := start(t, tc.opts)
				watchers := tc.reach(t, h)
				h.settle(t)

				before := time.Now()
				h.cancel()
				<-h.done

				assert.Zero(t, time.Since(before), "Run returned without waiting")
				for _, w := range watchers {
					assert.True(t, w.IsStopped(), "every watch is stopped")
				}
				edges := h.takeTransitions()
				assert.Equal(t, tc.lastEdge, edges[len(edges)-1])
				assert.NoError(t, h.r.CheckInvariants())
			})
		})
	}
}

// ListAndWatch can be driven without Run: it returns nil when a relist is
// due (or the context is cancelled) and the error when the list failed.
// Diagram: step 1. client-go: Reflector.ListAndWatchWithContext
func TestListAndWatchReturnsWhenARelistIsDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptedLW()
		store := &recordingStore{}
		r := reflector.New(lw, &metav1.PartialObjectMetadata{}, store, reflector.Options{Logger: discard()})
		results := make(chan error)
		run := func(ctx context.Context) { go func() { results <- r.ListAndWatch(ctx) }() }

		run(t.Context())
		lw.expectList(t, "0", 500).fail(errors.New("boom"))
		errList := <-results
		run(t.Context())
		lw.expectList(t, "0", 500).respondList(podList("3"))
		lw.expectWatch(t, "3").respondWatch().Error(expired())
		errExpired := <-results
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		run(ctx)
		errCancelled := <-results

		assert.EqualError(t, errList, "reflector: failed to list *v1.PartialObjectMetadata: boom")
		assert.NoError(t, errExpired)
		assert.NoError(t, errCancelled)
		assert.NoError(t, r.CheckInvariants())
	})
}

// New refuses a nil ListerWatcher or Store (a programming error); a ListWatch
// missing one of its functions returns an error, it does not panic.
// Diagram: step 1. client-go: NewReflectorWithOptions, ListWatch
func TestBadArguments(t *testing.T) {
	assert.PanicsWithValue(t, "reflector: New called with a nil ListerWatcher", func() {
		reflector.New(nil, nil, &recordingStore{}, reflector.Options{})
	})
	assert.PanicsWithValue(t, "reflector: New called with a nil Store", func() {
		reflector.New(reflector.ListWatch{}, nil, nil, reflector.Options{})
	})

	_, errList := reflector.ListWatch{}.List(t.Context(), metav1.ListOptions{})
	_, errWatch := reflector.ListWatch{}.Watch(t.Context(), metav1.ListOptions{})

	assert.EqualError(t, errList, "reflector: ListWatch has no ListFunc")
	assert.EqualError(t, errWatch, "reflector: ListWatch has no WatchFunc")
}

// A Reflector is named after the line that built it unless Options.Name
// says otherwise; its type description names the expected type.
// Diagram: step 1. client-go: Reflector.name, typeDescription
func TestNameAndTypeDescription(t *testing.T) {
	r := reflector.New(reflector.ListWatch{}, &metav1.PartialObjectMetadata{}, &recordingStore{}, reflector.Options{})
	named := reflector.New(reflector.ListWatch{}, nil, &recordingStore{}, reflector.Options{Name: "pods"})

	assert.Regexp(t, `^run_test\.go:\d+$`, r.Name())
	assert.Equal(t, "*v1.PartialObjectMetadata", r.TypeDescription())
	assert.Equal(t, "pods", named.Name())
	assert.Equal(t, "<unspecified>", named.TypeDescription())
}

// The default WatchErrorHandler logs routine errors quietly and the rest as
// warnings.
// Diagram: step 1. client-go: DefaultWatchErrorHandler
func TestDefaultWatchErrorHandlerLevels(t *testing.T) {
	logs := &logBuffer{}
	r := reflector.New(reflector.ListWatch{}, nil, &recordingStore{}, reflector.Options{Logger: logs.logger()})

	reflector.DefaultWatchErrorHandler(t.Context(), r, apierrors.NewResourceExpired("old"))
	reflector.DefaultWatchErrorHandler(t.Context(), r, errors.New("boom"))

	assert.Regexp(t, `level=DEBUG msg="reflector: watch closed"`, logs.String())
	assert.Regexp(t, `level=WARN msg="reflector: failed to list or watch".*err=boom`, logs.String())
}

// doc.go lists every transition of the state machine, and only those.
// Diagram: step 1. client-go: none (the state machine is implicit upstream)
func TestDocListsEveryTransition(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	doc := strings.ReplaceAll(string(src), "//", "")
	edge := regexp.MustCompile(`(?m)^\s+([a-z -]+?) -> ([a-z -]+?)\s{2,}`)

	var documented []string
	for _, m := range edge.FindAllStringSubmatch(doc, -1) {
		documented = append(documented, m[1]+" -> "+m[2])
	}
	var table []string
	for _, tr := range reflector.Transitions() {
		table = append(table, tr.From+" -> "+tr.To)
	}

	for _, tr := range table {
		t.Log(tr)
	}
	t.Logf("%d transitions in the Reflector's table, %d in doc.go's state list", len(table), len(documented))
	assert.ElementsMatch(t, table, documented)
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
