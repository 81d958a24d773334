package informer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// errProcessorStopped is returned when a listener is added after the
// processor (and so the informer) stopped.
var errProcessorStopped = errors.New("informer: the informer has stopped; handlers cannot be added")

// sharedProcessor fans each notification out to the listeners, and keeps the
// per-listener resync flags (REFERENCE §1.8-1.9).
//
// The resync flag of a listener says "this listener is due a resync now".
// Notifications marked sync — OnUpdate calls whose old and new objects have
// the same resourceVersion — reach only the flagged listeners. A listener
// starts flagged, and only shouldResync, called at every tick of the
// informer's resync check period, ever re-evaluates the flags. So:
//
//   - on an informer with no resync period nothing re-evaluates them, and a
//     relist's no-op update (same resourceVersion) reaches every listener;
//   - on an informer with one, after the first check only the listeners due
//     at that check see such updates, until the next check.
//
// That is client-go's behaviour, kept on purpose; see docs/informer.md.
//
// It is safe for concurrent use.
//
// client-go: tools/cache.sharedProcessor.
type sharedProcessor struct {
	logger *slog.Logger
	wg     sync.WaitGroup // counts running listener goroutines

	mu sync.RWMutex // guards the fields below
	// Invariants: stopped implies listeners is empty; started is never
	// cleared; upstreamSynced is never cleared.
	listeners      map[*processorListener]bool // value: due a resync now
	started        bool                        // run has started the listener goroutines
	stopped        bool                        // run has stopped them; nothing can be added
	upstreamSynced bool                        // the informer has synced
}

func newSharedProcessor(logger *slog.Logger) *sharedProcessor {
	return &sharedProcessor{logger: logger, listeners: map[*processorListener]bool{}}
}

// addListener registers l, flagged as syncing, and starts its goroutine if
// the processor runs. If the informer has synced already, l is told so now:
// the caller must have queued any replay on l before.
func (p *sharedProcessor) addListener(l *processorListener) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return errProcessorStopped
	}
	p.listeners[l] = true
	l.owner = p
	if p.upstreamSynced {
		l.sync.upstreamHasSynced()
	}
	if p.started {
		p.startLocked(l)
	}
	return nil
}

// removeListener stops l and forgets it. Unknown listeners are ignored.
func (p *sharedProcessor) removeListener(l *processorListener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.listeners[l]; !ok {
		return
	}
	delete(p.listeners, l)
	l.stop()
}

func (p *sharedProcessor) startLocked(l *processorListener) {
	l.started.Store(true)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		l.run()
	}()
}

// distribute hands n to every listener, or, if sync is set, only to the
// listeners flagged as due a resync. It never blocks on a handler.
func (p *sharedProcessor) distribute(n notification, sync bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for l, syncing := range p.listeners {
		if !sync || syncing {
			l.add(n)
		}
	}
}

// receivers returns how many listeners a notification would reach now.
func (p *sharedProcessor) receivers(sync bool) int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	count := 0
	for _, syncing := range p.listeners {
		if !sync || syncing {
			count++
		}
	}
	return count
}

// markUpstreamSynced tells every listener, present and future, that the
// informer has synced.
func (p *sharedProcessor) markUpstreamSynced() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.upstreamSynced = true
	for l := range p.listeners {
		l.sync.upstreamHasSynced()
	}
}

// run starts one goroutine per listener (and one for each listener added
// later), and when ctx is done stops every listener, dropping what they have
// buffered, and waits for all those goroutines to exit. A processor runs
// once: a second run returns at once.
func (p *sharedProcessor) run(ctx context.Context) {
	p.mu.Lock()
	if p.started || p.stopped {
		p.mu.Unlock()
		return
	}
	p.started = true
	for l := range p.listeners {
		p.startLocked(l)
	}
	p.mu.Unlock()

	<-ctx.Done()

	p.mu.Lock()
	p.stopped = true
	for l := range p.listeners {
		l.stop()
	}
	clear(p.listeners)
	p.mu.Unlock()
	p.wg.Wait()
}

// shouldResync is the Reflector's ShouldResync hook, asked at every tick of
// the resync check period. It re-evaluates every listener's flag: a listener
// is flagged iff its own period has elapsed, and a flagged listener's next
// resync is scheduled one period from now. It returns whether any listener
// is due, i.e. whether the queue should resync at all.
func (p *sharedProcessor) shouldResync() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	anyDue := false
	for l := range p.listeners {
		due := l.shouldResync(now)
		p.listeners[l] = due
		if due {
			anyDue = true
			l.determineNextResync(now)
		}
	}
	return anyDue
}

// resyncCheckPeriodChanged recomputes every listener's effective period
// after the informer lowered its check period (only ever before start).
func (p *sharedProcessor) resyncCheckPeriodChanged(checkPeriod time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := range p.listeners {
		l.resyncPeriod = determineResyncPeriod(p.logger, l.requestedResyncPeriod, checkPeriod)
	}
}

// listenerCount returns the number of registered listeners.
func (p *sharedProcessor) listenerCount() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.listeners)
}

func (p *sharedProcessor) checkInvariants() error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.stopped && len(p.listeners) != 0 {
		return errorf("processor: stopped with %d listeners", len(p.listeners))
	}
	for l := range p.listeners {
		if err := l.checkInvariants(); err != nil {
			return err
		}
		if p.upstreamSynced && !l.sync.upstreamKnown() {
			return errorf("processor: synced but a listener was not told")
		}
	}
	return nil
}
