package workqueue

import (
	"sync"
	"time"
)

// MetricsProvider creates the seven metrics a queue records. Each method is called
// once per queue, with the name given by [WithName]. Implementations typically wrap
// Prometheus collectors; the queue calls the metrics while holding its own lock, so
// they must be fast and must not call back into the queue.
//
// client-go: util/workqueue.MetricsProvider.
type MetricsProvider interface {
	// NewDepthMetric: how many items are waiting to be handed out (gauge).
	NewDepthMetric(name string) GaugeMetric
	// NewAddsMetric: how many adds the queue accepted (counter).
	NewAddsMetric(name string) CounterMetric
	// NewLatencyMetric: seconds an item waited between its first add and Get.
	NewLatencyMetric(name string) HistogramMetric
	// NewWorkDurationMetric: seconds between Get and Done.
	NewWorkDurationMetric(name string) HistogramMetric
	// NewUnfinishedWorkSecondsMetric: the summed age of every item in flight.
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	// NewLongestRunningProcessorSecondsMetric: the age of the oldest item in flight.
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	// NewRetriesMetric: how many delayed or rate-limited adds were asked for (counter).
	NewRetriesMetric(name string) CounterMetric
}

// GaugeMetric is a value that goes up and down by one.
//
// client-go: util/workqueue.GaugeMetric.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a value that is set outright.
//
// client-go: util/workqueue.SettableGaugeMetric.
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric is a value that only goes up.
//
// client-go: util/workqueue.CounterMetric.
type CounterMetric interface {
	Inc()
}

// HistogramMetric records observations, here always in seconds.
//
// client-go: util/workqueue.HistogramMetric.
type HistogramMetric interface {
	Observe(float64)
}

// inFlightRefresh is how often the two in-flight gauges are recomputed, as upstream.
const inFlightRefresh = 500 * time.Millisecond

// queueMetrics records one queue's metrics. A nil *queueMetrics records nothing: every
// method is a nil check the compiler inlines, which is what makes metrics free when no
// provider is set.
//
// The two in-flight gauges change with time alone, so they are refreshed by one
// goroutine, started the first time an item goes in flight and stopped by the queue's
// shutdown ([queueMetrics.stop]).
type queueMetrics[T comparable] struct {
	depth          GaugeMetric
	adds           CounterMetric
	latency        HistogramMetric
	workDuration   HistogramMetric
	unfinishedWork SettableGaugeMetric
	longestRunning SettableGaugeMetric
	retries        CounterMetric

	mu         sync.Mutex      // guards the fields below
	addTimes   map[T]time.Time // first add of each item not yet handed out
	startTimes map[T]time.Time // when each in-flight item was handed out
	refreshing bool            // the refresh goroutine was started
	stopped    bool            // stop was called; no refresh goroutine will start
	stopCh     chan struct{}   // closed by stop
	doneCh     chan struct{}   // closed by the refresh goroutine when it returns
}

// newQueueMetrics returns nil when o has no provider.
func newQueueMetrics[T comparable](o options) *queueMetrics[T] {
	p := o.metrics
	if p == nil {
		return nil
	}
	return &queueMetrics[T]{
		depth:          p.NewDepthMetric(o.name),
		adds:           p.NewAddsMetric(o.name),
		latency:        p.NewLatencyMetric(o.name),
		workDuration:   p.NewWorkDurationMetric(o.name),
		unfinishedWork: p.NewUnfinishedWorkSecondsMetric(o.name),
		longestRunning: p.NewLongestRunningProcessorSecondsMetric(o.name),
		retries:        p.NewRetriesMetric(o.name),
		addTimes:       make(map[T]time.Time),
		startTimes:     make(map[T]time.Time),
		stopCh:         make(chan struct{}),
		doneCh:         make(chan struct{}),
	}
}

// add records an accepted add: the item is now waiting to be handed out.
func (m *queueMetrics[T]) add(item T) {
	if m != nil {
		m.recordAdd(item)
	}
}

// get records that item was handed out.
func (m *queueMetrics[T]) get(item T) {
	if m != nil {
		m.recordGet(item)
	}
}

// done records that item's processing finished.
func (m *queueMetrics[T]) done(item T) {
	if m != nil {
		m.recordDone(item)
	}
}

// retry records a delayed or rate-limited add.
func (m *queueMetrics[T]) retry() {
	if m != nil {
		m.retries.Inc()
	}
}

func (m *queueMetrics[T]) recordAdd(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.adds.Inc()
	m.depth.Inc()
	if _, ok := m.addTimes[item]; !ok {
		m.addTimes[item] = time.Now()
	}
}

func (m *queueMetrics[T]) recordGet(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.depth.Dec()
	m.startTimes[item] = now
	if added, ok := m.addTimes[item]; ok {
		m.latency.Observe(now.Sub(added).Seconds())
		delete(m.addTimes, item)
	}
	if !m.refreshing && !m.stopped {
		m.refreshing = true
		go m.refreshLoop()
	}
}

func (m *queueMetrics[T]) recordDone(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if started, ok := m.startTimes[item]; ok {
		m.workDuration.Observe(time.Since(started).Seconds())
		delete(m.startTimes, item)
	}
}

// refreshLoop recomputes the in-flight gauges every inFlightRefresh until stop.
func (m *queueMetrics[T]) refreshLoop() {
	defer close(m.doneCh)
	ticker := time.NewTicker(inFlightRefresh)
	defer ticker.Stop()
	for {
		select {
		case <-m.stopCh:
			return
		case <-ticker.C:
			m.refreshInFlight()
		}
	}
}

func (m *queueMetrics[T]) refreshInFlight() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	var total, oldest float64
	for _, started := range m.startTimes {
		age := now.Sub(started).Seconds()
		total += age
		oldest = max(oldest, age)
	}
	m.unfinishedWork.Set(total)
	m.longestRunning.Set(oldest)
}

// stop ends the refresh goroutine, if one runs, and waits until it has returned.
// It is safe to call more than once and from several goroutines.
func (m *queueMetrics[T]) stop() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if !m.stopped {
		m.stopped = true
		close(m.stopCh)
	}
	refreshing := m.refreshing
	m.mu.Unlock()
	if refreshing {
		<-m.doneCh
	}
}
