package reflectorsuite_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
	"github.com/informerlab/informerlab/reflector"
)

// watchFromNow drops the resourceVersion of every watch: the watch starts
// at "now", and whatever happened since the list is lost.
type watchFromNow struct{ reflector.ListerWatcher }

func (w watchFromNow) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.ResourceVersion = ""
	return w.ListerWatcher.Watch(ctx, opts)
}

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

var mutants = map[string]reflectorsuite.Impl{
	"watch-from-now": {New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
		return reflector.New(watchFromNow{lw}, nil, store, reflector.Options{Logger: quiet})
	}},
	"hot-loop": {New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
		return hotLoop{lw: lw, store: store}
	}},
	// A fixed, tiny delay: a hot loop against a server that is down.
	"no-backoff": {New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
		b := reflector.Backoff{Initial: 10 * time.Millisecond, Factor: 1, Cap: 10 * time.Millisecond}
		return reflector.New(lw, nil, store, reflector.Options{Logger: quiet, Backoff: b})
	}},
}

func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, reflectorsuite.Behaviours(mutants[name]))
	}
}

func TestSuiteCatchesBrokenReflectors(t *testing.T) {
	assert.Contains(t, grade.FailedInChild(t, "TestHelperMutant", "watch-from-now"), "WatchStartsAtTheListResourceVersion")
	assert.Equal(t, []string{"BackoffGrowsWhileTheServerIsDown"}, grade.FailedInChild(t, "TestHelperMutant", "no-backoff"))
	// Retrying without ever waiting must fail the retry behaviours, not
	// hang the grader.
	assert.Subset(t, grade.FailedInChild(t, "TestHelperMutant", "hot-loop"),
		[]string{"FailedListIsRetried", "BackoffGrowsWhileTheServerIsDown"})
}
