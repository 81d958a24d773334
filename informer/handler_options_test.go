package informer_test

import (
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestHandlerOptionsGiveAHandlerItsOwnLoggerAndResyncPeriod registers two
// handlers that panic on every add, one with its own logger, on an informer
// that resyncs every 10s; the second asks for no resync with a pointer to 0.
// Each handler's panics go to its logger, and only the handler that kept
// the default (nil ResyncPeriod) is handed the resync.
//
// Diagram: step 6. client-go: SharedInformer.AddEventHandlerWithOptions,
// HandlerOptions.
func TestHandlerOptionsGiveAHandlerItsOwnLoggerAndResyncPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		a := create(t, cms, "ns", "a", "1")
		informerLog, ownLog := newLogCapture(), newLogCapture()
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 10*time.Second, nil, informer.WithLogger(slog.New(informerLog)))
		panicky := func(rec *recorder) informer.ResourceEventHandlerFuncs {
			return informer.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { panic("add bug") },
				UpdateFunc: rec.OnUpdate,
			}
		}
		defaults, own := newRecorder(), newRecorder()
		_, err := inf.AddEventHandlerWithOptions(panicky(defaults), informer.HandlerOptions{})
		require.NoError(t, err)
		noResync := time.Duration(0)
		_, err = inf.AddEventHandlerWithOptions(panicky(own), informer.HandlerOptions{Logger: slog.New(ownLog), ResyncPeriod: &noResync})
		require.NoError(t, err)

		run(t, inf)
		time.Sleep(15 * time.Second)
		synctest.Wait()

		assert.Equal(t, 1, countPrefix(informerLog.all(), "informer: event handler panicked"), "the default handler's panic")
		assert.Equal(t, 1, countPrefix(ownLog.all(), "informer: event handler panicked"), "the other handler's panic, in its own log")
		assert.Equal(t, []string{"update ns/a@" + rvOf(a) + "->" + rvOf(a)}, defaults.take(), "the default handler resyncs with the informer")
		assert.Empty(t, own.take(), "ResyncPeriod 0: no resync")
	})
}

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
