package reflector_test

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informerlab/informerlab/reflector"
)

// fakeMetrics is a MetricsProvider that keeps every value in one map,
// under "metric/name".
type fakeMetrics struct {
	mu     sync.Mutex
	values map[string]float64
}

func newFakeMetrics() *fakeMetrics { return &fakeMetrics{values: map[string]float64{}} }

type fakeMetric struct {
	m   *fakeMetrics
	key string
}

func (f fakeMetric) Inc() {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	f.m.values[f.key]++
}

func (f fakeMetric) Set(v float64) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	f.m.values[f.key] = v
}

func (m *fakeMetrics) metric(kind, name string) fakeMetric {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := kind + "/" + name
	m.values[key] += 0 // every created metric shows up, even at zero
	return fakeMetric{m: m, key: key}
}

func (m *fakeMetrics) NewListsMetric(name string) reflector.CounterMetric {
	return m.metric("lists", name)
}
func (m *fakeMetrics) NewWatchesMetric(name string) reflector.CounterMetric {
	return m.metric("watches", name)
}
func (m *fakeMetrics) NewRelistsMetric(name string) reflector.CounterMetric {
	return m.metric("relists", name)
}
func (m *fakeMetrics) NewWatchRestartsMetric(name string) reflector.CounterMetric {
	return m.metric("watch_restarts", name)
}
func (m *fakeMetrics) NewLastResourceVersionMetric(name string) reflector.GaugeMetric {
	return m.metric("last_resource_version", name)
}

func (m *fakeMetrics) snapshot() map[string]float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]float64, len(m.values))
	for k, v := range m.values {
		out[k] = v
	}
	return out
}

// The Reflector counts every list request and watch request it sends, every
// relist (a list-and-watch cycle after the first) and every watch it
// re-opens without a relist, and records its last resourceVersion, all
// under its name.
// Diagram: step 1. client-go: tools/cache reflector_metrics.go
func TestMetricsCountListsWatchesRelistsAndRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeMetrics()
		h := start(t, reflector.Options{Name: "pods", MetricsProvider: m})
		h.lw.expectList(t, "0", 500).respondList(podList("10", pod("a", "5"), pod("b", "6")))
		w := h.lw.expectWatch(t, "10").respondWatch()

		w.Modify(pod("a", "11"))
		w.Stop() // the server ends the watch: re-watch
		w = h.lw.expectWatch(t, "11").respondWatch()
		w.Error(&apierrors.NewTooManyRequests("slow down", 1).ErrStatus)
		w = h.lw.expectWatch(t, "11").respondWatch()
		w.Error(expired())
		h.lw.expectList(t, "11", 0).respondList(podList("12"))
		h.lw.expectWatch(t, "12").fail(errors.New("watch refused"))
		<-h.errs
		h.lw.expectList(t, "12", 0).respondList(podList("13"))
		h.lw.expectWatch(t, "13").respondWatch()
		h.settle(t)

		assert.Equal(t, map[string]float64{
			"lists/pods":                 3,
			"watches/pods":               5,
			"relists/pods":               2,
			"watch_restarts/pods":        2,
			"last_resource_version/pods": 13,
		}, m.snapshot())
	})
}

// Without a provider nothing is recorded and nothing breaks; a
// resourceVersion that is not a number leaves the gauge alone.
// Diagram: step 1. client-go: tools/cache reflector_metrics.go (noop provider)
func TestMetricsOptionalAndOnlyNumericResourceVersions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeMetrics()
		h := start(t, reflector.Options{Name: "odd", MetricsProvider: m})
		none := start(t, reflector.Options{})

		h.sync(t, "not-a-number")
		none.sync(t, "5")
		h.settle(t)
		none.settle(t)

		assert.Equal(t, 0.0, m.snapshot()["last_resource_version/odd"])
		assert.Equal(t, 1.0, m.snapshot()["lists/odd"])
		assert.Equal(t, "5", none.r.LastSyncResourceVersion())
	})
}

// A paginated list is one request per page, and counts as such.
// Diagram: step 1. client-go: tools/pager (each page is a request)
func TestMetricsCountEveryListPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeMetrics()
		h := start(t, reflector.Options{Name: "paged", MetricsProvider: m})

		h.lw.expectList(t, "0", 500).respondList(page("10", "next", pod("a", "5")))
		h.lw.expectList(t, "", 500).respondList(podList("10", pod("b", "6")))
		h.lw.expectWatch(t, "10").respondWatch()
		h.settle(t)

		assert.Equal(t, 2.0, m.snapshot()["lists/paged"])
		assert.Equal(t, 0.0, m.snapshot()["relists/paged"], "pages of one list are not relists")
	})
}
