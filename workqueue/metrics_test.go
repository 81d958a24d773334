package workqueue_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/workqueue"
)

// fakeMetrics is a MetricsProvider that records every value, safe for concurrent use.
type fakeMetrics struct {
	mu     sync.Mutex
	names  map[string]bool      // names metrics were created for
	values map[string]float64   // counters, gauges and settable gauges
	obs    map[string][]float64 // histogram observations
}

func newFakeMetrics() *fakeMetrics {
	return &fakeMetrics{names: map[string]bool{}, values: map[string]float64{}, obs: map[string][]float64{}}
}

func (f *fakeMetrics) value(metric string) float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.values[metric]
}

func (f *fakeMetrics) observations(metric string) []float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]float64(nil), f.obs[metric]...)
}

type fakeMetric struct {
	f      *fakeMetrics
	metric string
}

func (m fakeMetric) change(fn func(*float64)) {
	m.f.mu.Lock()
	defer m.f.mu.Unlock()
	v := m.f.values[m.metric]
	fn(&v)
	m.f.values[m.metric] = v
}

func (m fakeMetric) Inc()          { m.change(func(v *float64) { *v++ }) }
func (m fakeMetric) Dec()          { m.change(func(v *float64) { *v-- }) }
func (m fakeMetric) Set(x float64) { m.change(func(v *float64) { *v = x }) }
func (m fakeMetric) Observe(x float64) {
	m.f.mu.Lock()
	defer m.f.mu.Unlock()
	m.f.obs[m.metric] = append(m.f.obs[m.metric], x)
}

func (f *fakeMetrics) metric(name, metric string) fakeMetric {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.names[name] = true
	return fakeMetric{f, metric}
}

func (f *fakeMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return f.metric(name, "depth")
}
func (f *fakeMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return f.metric(name, "adds")
}
func (f *fakeMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return f.metric(name, "latency")
}
func (f *fakeMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return f.metric(name, "work_duration")
}
func (f *fakeMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return f.metric(name, "unfinished_work_seconds")
}
func (f *fakeMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return f.metric(name, "longest_running_processor_seconds")
}
func (f *fakeMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return f.metric(name, "retries")
}

// TestMetricsRecordAddsDepthLatencyAndWorkDuration: an accepted add counts once
// (a collapsed add does not), depth follows the queue, latency is the wait from the
// first add to Get and work duration the time from Get to Done, both exact.
// Diagram: steps 7, 8. client-go: defaultQueueMetrics add/get/done.
func TestMetricsRecordAddsDepthLatencyAndWorkDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeMetrics()
		q := workqueue.New[string](workqueue.WithName("pods"), workqueue.WithMetricsProvider(m))

		q.Add("ns/a")
		q.Add("ns/a")
		q.Add("ns/b")
		assert.Equal(t, 2.0, m.value("depth"))
		time.Sleep(2 * time.Second)
		a, _ := q.Get()
		time.Sleep(3 * time.Second)
		q.Done(a)

		assert.Equal(t, map[string]bool{"pods": true}, m.names)
		assert.Equal(t, 2.0, m.value("adds"))
		assert.Equal(t, 1.0, m.value("depth"))
		assert.Equal(t, []float64{2}, m.observations("latency"))
		assert.Equal(t, []float64{3}, m.observations("work_duration"))
		q.ShutDown()
	})
}

// TestMetricsCountEveryDelayedAddAsARetry.
// Diagram: step 7. client-go: delayingType.AddAfter (metrics.retry).
func TestMetricsCountEveryDelayedAddAsARetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeMetrics()
		q := workqueue.NewRateLimiting(workqueue.NewItemExponentialFailureRateLimiter[string](ms, time.Second), workqueue.WithMetricsProvider(m))

		q.AddAfter("ns/a", time.Second)
		q.AddAfter("ns/b", 0)
		q.AddRateLimited("ns/c")

		assert.Equal(t, 3.0, m.value("retries"))
		q.ShutDown()
	})
}

// TestMetricsRefreshInFlightGaugesEveryHalfSecond: the summed and the longest age of
// items being processed are recomputed every 500ms by one goroutine, which starts
// at the first Get and stops at ShutDown.
// Diagram: step 8. client-go: updateUnfinishedWorkLoop.
func TestMetricsRefreshInFlightGaugesEveryHalfSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := bubbleGoroutines(t)
		m := newFakeMetrics()
		q := workqueue.New[string](workqueue.WithMetricsProvider(m))
		q.Add("ns/a")
		q.Add("ns/b")
		assert.Equal(t, before, bubbleGoroutines(t))

		_, _ = q.Get()
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 1.5, m.value("unfinished_work_seconds"))
		assert.Equal(t, 1.5, m.value("longest_running_processor_seconds"))
		t.Logf("one item in flight for 1.5s: unfinished_work_seconds=%v longest_running_processor_seconds=%v", m.value("unfinished_work_seconds"), m.value("longest_running_processor_seconds"))
		_, _ = q.Get()
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 2.5, m.value("unfinished_work_seconds"))
		assert.Equal(t, 2.0, m.value("longest_running_processor_seconds"))
		t.Logf("   a second in flight, 0.5s later: unfinished_work_seconds=%v longest_running_processor_seconds=%v; refresh goroutines: %d", m.value("unfinished_work_seconds"), m.value("longest_running_processor_seconds"), bubbleGoroutines(t)-before)
		assert.Equal(t, before+1, bubbleGoroutines(t))

		t.Log("   ShutDown stops the refresh goroutine")
		q.ShutDown()
		synctest.Wait() // ShutDown signals the refresh goroutine; let it exit

		assert.Equal(t, before, bubbleGoroutines(t))
	})
}

// TestPriorityQueueRecordsMetrics: the priority queue reports the same metrics.
// Diagram: steps 7, 8. client-go: controller-runtime priorityqueue metrics.
func TestPriorityQueueRecordsMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeMetrics()
		q := workqueue.NewPriorityQueue[string](nil, workqueue.WithName("pq"), workqueue.WithMetricsProvider(m))

		q.Add("ns/a")
		q.AddAfter("ns/b", time.Second)
		item, _ := q.Get()
		time.Sleep(time.Second)
		q.Done(item)
		synctest.Wait()

		assert.Equal(t, 2.0, m.value("adds"), "ns/b counts when it becomes ready")
		assert.Equal(t, 1.0, m.value("depth"))
		assert.Equal(t, 1.0, m.value("retries"))
		assert.Equal(t, []float64{1}, m.observations("work_duration"))
		q.ShutDown()
	})
}

// TestQueueWithoutMetricsAllocatesNothing: with no provider, metrics cost nothing,
// and the queue's steady state allocates nothing: Add, Get and Done reuse the
// queue's buffer and map slots.
// Diagram: steps 7, 8. client-go: noMetrics.
func TestQueueWithoutMetricsAllocatesNothing(t *testing.T) {
	keys := []string{"ns/a", "ns/b", "ns/c", "ns/d"}
	for name, q := range map[string]workqueue.Interface[string]{
		"queue":         workqueue.New[string](),
		"delaying":      workqueue.NewDelaying[string](),
		"rate-limiting": workqueue.NewRateLimiting[string](nil),
	} {
		t.Run(name, func(t *testing.T) {
			i := 0
			allocs := testing.AllocsPerRun(1000, func() {
				q.Add(keys[i%len(keys)])
				item, _ := q.Get()
				q.Done(item)
				i++
			})

			assert.Zero(t, allocs)
			t.Logf("%s: Add, Get, Done with no metrics provider: %v allocations per round", name, allocs)
			q.ShutDown()
		})
	}
}
