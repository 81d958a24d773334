package informer_test

import (
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

const (
	lowHalf  = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	highHalf = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
	// fallbackLog is the line a sharded Reflector logs, once, when the
	// server sent objects from outside the shard.
	fallbackLog = "reflector: the server ignored the shard selector"
)

// shardWorld is 40 ConfigMaps in namespace "ns", and which half of the uid
// hash range each one is in, computed here, independently of the server.
type shardWorld struct {
	srv       *fakeapi.Server
	low, high []string // keys, sorted
}

func newShardWorld(t *testing.T, opts fakeapi.Options) *shardWorld {
	w := &shardWorld{srv: newServer(t, opts)}
	for i := range 40 {
		cm := create(t, w.srv.Resource(cmGVR), "ns", fmt.Sprintf("cm-%02d", i), "1")
		h := fnv.New64a()
		h.Write([]byte(cm.GetUID()))
		if h.Sum64() < 1<<63 {
			w.low = append(w.low, "ns/"+cm.GetName())
		} else {
			w.high = append(w.high, "ns/"+cm.GetName())
		}
	}
	return w
}

func sortedKeys(view map[string]string) []string {
	keys := make([]string, 0, len(view))
	for k := range view {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// linesFor keeps the recorder lines of one kind ("add ", "delete "),
// reduced to their keys, sorted.
func linesFor(lines []string, prefix string) []string {
	var keys []string
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			keys = append(keys, strings.FieldsFunc(rest, func(r rune) bool { return r == '@' || r == ' ' })[0])
		}
	}
	sort.Strings(keys)
	return keys
}

func countLines(lines []string, substr string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// shardedInformerMovesHalves runs the scenario every sharded-informer test
// shares: cache the low half, then switch to the high half. settle waits
// until cond holds (at once in a bubble, with a deadline over a socket).
func shardedInformerMovesHalves(t *testing.T, w *shardWorld, lw reflector.ListerWatcher, logs logCapture,
	settle func(cond func() bool), signal func()) informer.SharedIndexInformer {
	inf := informer.NewSharedIndexInformer(lw, exampleCM(), 0, nil, informer.WithLogger(slog.New(logs)))
	require.NoError(t, inf.SetShardSelector(lowHalf))
	rec := newRecorder()
	_, err := inf.AddEventHandler(signallingRecorder{rec, signal})
	require.NoError(t, err)
	run(t, inf)
	// Handlers run after the cache is written: settled is when the cache
	// and the handler's view both hold the shard.
	holds := func(keys []string) func() bool {
		return func() bool {
			view, _ := rec.snapshot()
			return slices.Equal(sortedKeys(cacheView(inf)), keys) && slices.Equal(sortedKeys(view), keys)
		}
	}
	settle(holds(w.low))

	assert.Equal(t, w.low, sortedKeys(cacheView(inf)), "the cache holds the low half")
	assert.Equal(t, w.low, linesFor(rec.take(), "add "), "each of them reached the handler as an add")
	t.Logf("shard %s: %d objects cached, each an add", lowHalf, len(sortedKeys(cacheView(inf))))

	require.NoError(t, inf.SetShardSelector(highHalf))
	settle(holds(w.high))

	assert.Equal(t, w.high, sortedKeys(cacheView(inf)), "the cache holds the high half")
	lines := rec.take()
	assert.Equal(t, w.low, linesFor(lines, "delete "), "every object that left the shard was deleted")
	assert.Equal(t, w.high, linesFor(lines, "add "), "every object that joined was added")
	t.Logf("switched to %s: relisted; %d deletes, %d adds; %d objects cached", highHalf, len(linesFor(lines, "delete ")), len(linesFor(lines, "add ")), len(sortedKeys(cacheView(inf))))
	_, problems := rec.snapshot()
	assert.Empty(t, problems)
	return inf
}

// TestShardedInformerRelistsWhenItsShardChanges: an informer caching the
// low half of the uid hash range is switched to the high half; its watch
// ends, the Reflector relists with the new selector, and DeltaFIFO.Replace
// turns the objects that left into deletes and those that joined into adds.
// The server filters, so the client-side check drops nothing and says
// nothing.
// Diagram: steps 1-6. client-go: none (v0.37.2 has no sharded informer); kube-apiserver: ShardedListAndWatch.
func TestShardedInformerRelistsWhenItsShardChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newShardWorld(t, fakeapi.Options{})
		logs := newLogCapture()

		shardedInformerMovesHalves(t, w, w.srv.Resource(cmGVR), logs, func(cond func() bool) {
			synctest.Wait()
			require.True(t, cond())
		}, func() {})

		assert.Zero(t, countLines(logs.all(), fallbackLog))
	})
}

// TestShardedInformerFiltersOnTheClientWhenTheServerIgnoresTheSelector: a
// server without ShardedListAndWatch sends every object; the Reflector
// filters with the same hash, so the cache and the handlers see exactly
// the same as against a server that filters, and the log says so once.
// Diagram: steps 1-2. kube-apiserver: ShardedListAndWatch off.
func TestShardedInformerFiltersOnTheClientWhenTheServerIgnoresTheSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newShardWorld(t, fakeapi.Options{IgnoreShardSelector: true})
		logs := newLogCapture()

		inf := shardedInformerMovesHalves(t, w, w.srv.Resource(cmGVR), logs, func(cond func() bool) {
			synctest.Wait()
			require.True(t, cond())
		}, func() {})
		var inHigh, inLow string
		for i := 0; inHigh == "" || inLow == ""; i++ {
			cm := create(t, w.srv.Resource(cmGVR), "ns", fmt.Sprintf("late-%d", i), "1")
			h := fnv.New64a()
			h.Write([]byte(cm.GetUID()))
			if h.Sum64() >= 1<<63 {
				inHigh = "ns/" + cm.GetName()
			} else {
				inLow = "ns/" + cm.GetName()
			}
		}
		synctest.Wait()

		assert.Equal(t, 1, countLines(logs.all(), fallbackLog), "said once: %v", logs.all())
		view := cacheView(inf)
		assert.Contains(t, view, inHigh, "a watched object of the shard is cached")
		assert.NotContains(t, view, inLow, "a watched object of another shard is filtered like a listed one")
		for _, l := range logs.all() {
			if strings.Contains(l, fallbackLog) {
				t.Logf("logged once: %s", l)
			}
		}
		t.Logf("watched later: %s (in the shard) cached, %s (not) filtered out", inHigh, inLow)
	})
}

// TestShardedInformerOverHTTP: the same scenario through the client
// package and fakeapi's HTTP handler, against a server that filters and
// one that does not.
// Diagram: steps 1-6, over HTTP.
func TestShardedInformerOverHTTP(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("IgnoreShardSelector=%v", ignore), func(t *testing.T) {
			w := newShardWorld(t, fakeapi.Options{IgnoreShardSelector: ignore})
			ts := httptest.NewServer(w.srv.Handler())
			t.Cleanup(func() {
				w.srv.Close()
				ts.Close()
			})
			cfg, err := client.ConfigFromURL(ts.URL)
			require.NoError(t, err)
			cfg.Logger = quiet
			c, err := client.New(cfg, nil)
			require.NoError(t, err)
			logs := newLogCapture()
			// Every handler call signals changed: settle re-checks then.
			changed := make(chan struct{}, 1)
			signal := func() {
				select {
				case changed <- struct{}{}:
				default:
				}
			}

			shardedInformerMovesHalves(t, w, c.Resource(cmGVR), logs, func(cond func() bool) {
				deadline := time.NewTimer(20 * time.Second)
				defer deadline.Stop()
				for !cond() {
					select {
					case <-changed:
					case <-deadline.C:
						require.FailNow(t, "condition not reached within 20s")
					}
				}
			}, signal)

			want := 0
			if ignore {
				want = 1
			}
			assert.Equal(t, want, countLines(logs.all(), fallbackLog))
		})
	}
}

// signallingRecorder records like a recorder, then calls signal.
type signallingRecorder struct {
	*recorder
	signal func()
}

func (s signallingRecorder) OnAdd(obj any, initial bool) { s.recorder.OnAdd(obj, initial); s.signal() }
func (s signallingRecorder) OnUpdate(oldObj, newObj any) {
	s.recorder.OnUpdate(oldObj, newObj)
	s.signal()
}
func (s signallingRecorder) OnDelete(obj any) { s.recorder.OnDelete(obj); s.signal() }
