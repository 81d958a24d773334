package shardingsuite

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/labs/grade"
)

// A guard that checks "held" in one lock section and counts the reconcile
// in another lets a release slip in between: Release sees nothing in
// flight and gives the Lease away, and the key it admitted a moment
// before runs anyway, on a bucket another member now holds. No data race
// is involved, so -race says nothing, and the window is a few
// nanoseconds wide: no fake of the suite's runs inside it. So
// ReleaseNeverOverlapsARunningKey runs the protocol and two workers on
// real goroutines for a while (stressFor at most) and watches the
// invariant as it goes, the way a linearizability checker reads a
// history: a monitor records, under one lock, every reconcile's start and
// end, every release that reported true and every gain, and fails at the
// first moment two holders act at once.

// stressFor bounds ReleaseNeverOverlapsARunningKey in real time.
const stressFor = 3 * time.Second

// holderMonitor is the history of one bucket as the suite sees it.
type holderMonitor struct {
	mu       sync.Mutex // guards the fields below
	held     bool       // between a gain and the next release that reported true
	running  int        // reconciles started and not ended
	cycles   int        // releases that reported true
	violated string     // the first violation, if any
}

func (m *holderMonitor) event(what string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch what {
	case "gained":
		m.held = true
	case "released":
		m.cycles++
		if m.running > 0 && m.violated == "" {
			m.violated = fmt.Sprintf("release %d reported true (the Lease is given away) while %d admitted reconcile(s) of the bucket still ran", m.cycles, m.running)
		}
		m.held = false
	case "start":
		if !m.held && m.violated == "" {
			m.violated = fmt.Sprintf("a reconcile started after release %d reported true and before the bucket was gained again: Admit let it run on a bucket already given away", m.cycles)
		}
		m.running++
	case "end":
		m.running--
	}
}

func (m *holderMonitor) violation(what string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.violated == "" {
		m.violated = what
	}
}

func (m *holderMonitor) result() (violated string, cycles int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.violated, m.cycles
}

// releaseNeverOverlaps is ReleaseNeverOverlapsARunningKey.
func releaseNeverOverlaps(t *testing.T, impl Impl) {
	g := impl.New(buckets, time.Hour, retryPeriod)
	m := &holderMonitor{}
	r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
		m.event("start")
		runtime.Gosched() // a reconcile takes a moment
		m.event("end")
		return controller.Result{}, nil
	})
	wrapped := g.Wrap(r, inBucket(0))
	var stop atomic.Bool
	var workers []<-chan struct{}
	for range 2 {
		workers = append(workers, grade.Go(t, func() {
			for !stop.Load() {
				_, _ = wrapped.Reconcile(context.Background(), req)
			}
		}))
	}
	// The protocol side asks Release again and again, cancelling each
	// release that must wait, so that every call is one more chance to
	// land between an Admit's check and its count.
	m.event("gained")
	g.Gained(0, time.Now())
	g.Synced(0)
	for end := time.Now().Add(stressFor); time.Now().Before(end); {
		if v, _ := m.result(); v != "" {
			break
		}
		if !g.Release(0) {
			g.CancelRelease(0)
			continue
		}
		m.event("released")
		// Nothing may be in flight, and nothing may be admitted, until the
		// bucket is gained again.
		for range 2 {
			runtime.Gosched()
			if n := g.InFlight(0); n != 0 {
				m.violation(fmt.Sprintf("InFlight is %d just after a release reported true, before the bucket was gained again: Admit counted a key on a bucket already given away", n))
			}
		}
		m.event("gained")
		g.Gained(0, time.Now())
		g.Synced(0)
	}
	stop.Store(true)
	for _, w := range workers {
		<-w
	}
	violated, cycles := m.result()
	assert.Empty(t, violated, "after %d gains and releases of one bucket with two workers reconciling its keys", cycles)
}
