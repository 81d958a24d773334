package informer

import "sync"

// syncTracker answers HasSynced for one handler registration. The informer
// being synced is not enough: its handler may still be working through the
// initial list in its own buffer. The
// registration is synced when
//
//  1. the informer has synced (upstreamHasSynced was called), and
//  2. every initial-list OnAdd handed to this registration has returned
//     (start and finished calls balance).
//
// Once synced it stays synced, and done is closed, so waiters need not poll.
// It is safe for concurrent use.
//
// client-go: tools/cache/synctrack.SingleFileTracker.
type syncTracker struct {
	done chan struct{} // closed once synced

	mu sync.Mutex // guards the fields below
	// Invariants: pending >= 0; done is closed iff synced, and
	// synced implies upstream && pending == 0 held at some point.
	upstream bool // the informer has synced
	pending  int  // initial-list adds handed over and not yet handled
	synced   bool
}

func newSyncTracker() *syncTracker {
	return &syncTracker{done: make(chan struct{})}
}

// start records that an initial-list add was handed to the handler.
func (t *syncTracker) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending++
}

// finished records that the handler returned from an initial-list add.
func (t *syncTracker) finished() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == 0 {
		// More finished than start calls is a bug in this package.
		panic("informer: sync tracker finished more initial adds than it started")
	}
	t.pending--
	t.maybeSyncLocked()
}

// upstreamHasSynced records that the informer itself has synced.
func (t *syncTracker) upstreamHasSynced() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.upstream = true
	t.maybeSyncLocked()
}

func (t *syncTracker) maybeSyncLocked() {
	if !t.synced && t.upstream && t.pending == 0 {
		t.synced = true
		close(t.done)
	}
}

// hasSynced reports whether the registration has synced.
func (t *syncTracker) hasSynced() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// upstreamKnown reports whether upstreamHasSynced has been called.
func (t *syncTracker) upstreamKnown() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.upstream
}

func (t *syncTracker) checkInvariants() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending < 0 {
		return errorf("sync tracker: pending is %d", t.pending)
	}
	if t.synced != t.hasSynced() {
		return errorf("sync tracker: synced is %v but done closed is %v", t.synced, t.hasSynced())
	}
	return nil
}
