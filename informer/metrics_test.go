package informer_test

import (
	"maps"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// fakeMetrics is an informer.MetricsProvider keeping every value in one map
// under "metric/informer" or "metric/informer/handler".
type fakeMetrics struct {
	mu     sync.Mutex
	values map[string]float64
}

type fakeMetric struct {
	m   *fakeMetrics
	key string
}

func (f fakeMetric) Inc() { f.m.add(f.key, 1, false) }

func (f fakeMetric) Set(v float64) { f.m.add(f.key, v, true) }

func (m *fakeMetrics) add(key string, v float64, set bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if set {
		m.values[key] = v
	} else {
		m.values[key] += v
	}
}

func (m *fakeMetrics) metric(key string) fakeMetric {
	m.add(key, 0, false)
	return fakeMetric{m: m, key: key}
}

func (m *fakeMetrics) NewListsMetric(name string) reflector.CounterMetric {
	return m.metric("lists/" + name)
}
func (m *fakeMetrics) NewWatchesMetric(name string) reflector.CounterMetric {
	return m.metric("watches/" + name)
}
func (m *fakeMetrics) NewRelistsMetric(name string) reflector.CounterMetric {
	return m.metric("relists/" + name)
}
func (m *fakeMetrics) NewWatchRestartsMetric(name string) reflector.CounterMetric {
	return m.metric("watch_restarts/" + name)
}
func (m *fakeMetrics) NewLastResourceVersionMetric(name string) reflector.GaugeMetric {
	return m.metric("last_resource_version/" + name)
}
func (m *fakeMetrics) NewHandlerEventsMetric(inf, handler string) reflector.CounterMetric {
	return m.metric("handler_events/" + inf + "/" + handler)
}
func (m *fakeMetrics) NewHandlerBacklogMetric(inf, handler string) reflector.GaugeMetric {
	return m.metric("handler_backlog/" + inf + "/" + handler)
}
func (m *fakeMetrics) NewHandlerPanicsMetric(inf, handler string) reflector.CounterMetric {
	return m.metric("handler_panics/" + inf + "/" + handler)
}

func (m *fakeMetrics) snapshot() map[string]float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.values)
}

// panicOnUpdate is a handler that panics on every update.
type panicOnUpdate struct {
	informer.ResourceEventHandlerFuncs
}

func (panicOnUpdate) OnUpdate(any, any) { panic("boom") }

const (
	recorderName = "github.com/informerlab/informerlab/informer_test.recorder"
	panicName    = "github.com/informerlab/informerlab/informer_test.panicOnUpdate"
)

// TestInformerMetricsCountHandlerEventsPanicsAndReflectorCalls: one
// provider gets the handlers' metrics (under the informer's and each
// handler's name) and the Reflector's (under the informer's name): events
// handed to each handler, panics, list and watch requests, watch restarts,
// relists, and the last resourceVersion.
//
// Diagram: steps 1 and 6. client-go: tools/cache informer_metrics.go, reflector_metrics.go
func TestInformerMetricsCountHandlerEventsPanicsAndReflectorCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		create(t, cms, "ns", "b", "1")
		m := &fakeMetrics{values: map[string]float64{}}
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet),
			informer.WithName("cms"), informer.WithMetricsProvider(m))
		startSynced(t, inf, newRecorder(), panicOnUpdate{})

		update(t, cms, "ns", "a", "2")
		update(t, cms, "ns", "b", "2")
		synctest.Wait()
		srv.CloseWatches() // the server ends the watch: re-watch
		settle()
		silent := srv.SilentResource(cmGVR)
		update(t, silent, "ns", "b", "3") // no watch event
		srv.Compact()
		time.Sleep(5 * time.Second)
		srv.CloseWatches() // the re-watch finds its history gone: relist, which finds b@6
		settle()

		assert.Equal(t, map[string]float64{
			"handler_events/cms/" + recorderName:  6, // 2 initial adds, 2 updates, 2 relist updates (a unchanged, b@6)
			"handler_backlog/cms/" + recorderName: 0,
			"handler_panics/cms/" + recorderName:  0,
			"handler_events/cms/" + panicName:     6,
			"handler_backlog/cms/" + panicName:    0,
			"handler_panics/cms/" + panicName:     4, // every update
			"lists/cms":                           2,
			"watches/cms":                         4,
			"relists/cms":                         1,
			"watch_restarts/cms":                  2,
			"last_resource_version/cms":           6,
		}, m.snapshot())
	})
}

// TestInformerMetricsHandlerBacklogFollowsTheBuffer: a handler that is busy
// falls behind; the gauge shows how many notifications wait, and returns to
// zero once it has caught up.
//
// Diagram: step 6. client-go: processorListener (pendingNotifications)
func TestInformerMetricsHandlerBacklogFollowsTheBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR)
		create(t, cms, "ns", "a", "1")
		m := &fakeMetrics{values: map[string]float64{}}
		inf := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet),
			informer.WithName("cms"), informer.WithMetricsProvider(m))
		release := make(chan struct{})
		startSynced(t, inf, informer.ResourceEventHandlerFuncs{UpdateFunc: func(any, any) { <-release }})
		name := "handler_backlog/cms/github.com/informerlab/informerlab/informer_test.TestInformerMetricsHandlerBacklogFollowsTheBuffer.func1"
		require.Contains(t, m.snapshot(), name)

		for _, v := range []string{"2", "3", "4", "5"} {
			update(t, cms, "ns", "a", v)
		}
		synctest.Wait()
		behind := m.snapshot()[name]
		close(release)
		synctest.Wait()

		assert.Equal(t, 3.0, behind, "one update being handled, three waiting")
		assert.Equal(t, 0.0, m.snapshot()[name])
	})
}

// TestInformerNameDefaultsToTheKindWatched: without WithName the metrics
// are recorded under the kind of object watched, or under the Reflector's
// name when WithReflectorOptions gives one.
//
// Diagram: step 1. client-go: InformerNameAndResource
func TestInformerNameDefaultsToTheKindWatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := newServer(t, fakeapi.Options{}).Resource(cmGVR)
		m := &fakeMetrics{values: map[string]float64{}}
		byKind := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet),
			informer.WithMetricsProvider(m))
		byReflector := informer.NewSharedIndexInformer(cms, exampleCM(), 0, nil, informer.WithLogger(quiet),
			informer.WithMetricsProvider(m), informer.WithReflectorOptions(reflector.Options{Name: "mine"}))

		startSynced(t, byKind)
		startSynced(t, byReflector)

		assert.Equal(t, 1.0, m.snapshot()["lists//v1, Kind=ConfigMap"])
		assert.Equal(t, 1.0, m.snapshot()["lists/mine"])
	})
}
