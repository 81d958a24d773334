package reflector

import "strconv"

// MetricsProvider creates the metrics a Reflector records. Each method is
// called once per Reflector, with its name (Options.Name). Implementations
// typically wrap Prometheus collectors; the Reflector calls them from its
// own goroutine, so they must be fast and safe for concurrent use.
//
// client-go: tools/cache.MetricsProvider (reflector_metrics.go), which has
// the lists, watches and last-resourceVersion metrics but no relist or
// re-watch counts.
type MetricsProvider interface {
	// NewListsMetric: list requests sent, every page counted (counter).
	NewListsMetric(name string) CounterMetric
	// NewWatchesMetric: watch requests sent, streaming lists included (counter).
	NewWatchesMetric(name string) CounterMetric
	// NewRelistsMetric: list-and-watch cycles after the first, each of
	// which starts with a list: how often the Reflector had to list again
	// (a 410, a failed watch, an unexpected error) (counter).
	NewRelistsMetric(name string) CounterMetric
	// NewWatchRestartsMetric: watches re-opened without a relist, after the
	// server ended one, an idle timeout, a 429 or a retried 500 (counter).
	NewWatchRestartsMetric(name string) CounterMetric
	// NewLastResourceVersionMetric: the last resourceVersion the Reflector
	// recorded, as a number; resourceVersions that are not integers are not
	// recorded (gauge).
	NewLastResourceVersionMetric(name string) GaugeMetric
}

// CounterMetric is a value that only goes up.
//
// client-go: tools/cache.CounterMetric.
type CounterMetric interface {
	Inc()
}

// GaugeMetric is a value that is set outright.
//
// client-go: tools/cache.GaugeMetric.
type GaugeMetric interface {
	Set(float64)
}

// reflectorMetrics records one Reflector's metrics. A nil *reflectorMetrics
// records nothing, so metrics cost one nil check when no provider is set.
type reflectorMetrics struct {
	lists, watches, relists, watchRestarts CounterMetric
	lastResourceVersion                    GaugeMetric
}

func newReflectorMetrics(p MetricsProvider, name string) *reflectorMetrics {
	if p == nil {
		return nil
	}
	return &reflectorMetrics{
		lists:               p.NewListsMetric(name),
		watches:             p.NewWatchesMetric(name),
		relists:             p.NewRelistsMetric(name),
		watchRestarts:       p.NewWatchRestartsMetric(name),
		lastResourceVersion: p.NewLastResourceVersionMetric(name),
	}
}

func (m *reflectorMetrics) list() {
	if m != nil {
		m.lists.Inc()
	}
}

func (m *reflectorMetrics) watch() {
	if m != nil {
		m.watches.Inc()
	}
}

func (m *reflectorMetrics) relist() {
	if m != nil {
		m.relists.Inc()
	}
}

func (m *reflectorMetrics) watchRestart() {
	if m != nil {
		m.watchRestarts.Inc()
	}
}

func (m *reflectorMetrics) resourceVersion(rv string) {
	if m == nil {
		return
	}
	if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
		m.lastResourceVersion.Set(float64(n))
	}
}
