package demoengine

import "sync"

// writeLog holds the resourceVersion the server gave each controller write
// until the observer narrates it: the Observer's Event says what was
// written, the answer says which version it made. Keyed by resource, verb
// and object: each is written by one worker at a time.
//
// It also follows, per Foo, the chain of the controller's own writes, as
// the controller does to read its own writes: when the cache hands out a
// version one of them replaced, the cache is behind the controller.
//
// And it keeps causes before effects in a live run: a controller write's
// watch event can reach a Reflector before the write's own line is
// printed. Each write of a Foo or Deployment is registered before it is
// sent (start) and unregistered once its line is printed (done); watch
// events wait (idle) until no write is in flight. (The gate orders the
// deterministic transcript by itself.)
type writeLog struct {
	mu      sync.Mutex // guards answers, own, inflight, pending and idle
	answers map[string]writeAnswer
	own     map[string]ownChain
	// inflight counts, per "resource verb key", the writes sent and not
	// yet narrated; pending is their total plus the story's held writes.
	inflight map[string]int
	pending  int
	idle     chan struct{} // closed while pending is 0
}

// writeAnswer is what the server answered a write, as the transcript
// says it: "rv 7", or a sentence when the answer needs one. gone marks a
// write that found its object already deleted, which the controller treats
// as done.
type writeAnswer struct {
	text string
	gone bool
}

// ownChain is a Foo's run of own writes: the versions they replaced, and
// the latest they made ("" when the last one deleted the Foo).
type ownChain struct {
	replaced map[string]bool
	latest   string
	deleted  bool
}

func newWriteLog() *writeLog {
	idle := make(chan struct{})
	close(idle)
	return &writeLog{answers: map[string]writeAnswer{}, own: map[string]ownChain{}, inflight: map[string]int{}, idle: idle}
}

// start registers a write about to be sent; take unregisters it once it
// has been narrated.
func (l *writeLog) start(resource, verb, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight[resource+" "+verb+" "+key]++
	l.holdLocked()
}

// hold and release bracket a write narrated outside the observer (the
// story's own writes).
func (l *writeLog) hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holdLocked()
}

func (l *writeLog) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked()
}

func (l *writeLog) holdLocked() {
	if l.pending == 0 {
		l.idle = make(chan struct{})
	}
	l.pending++
}

func (l *writeLog) releaseLocked() {
	l.pending--
	if l.pending == 0 {
		close(l.idle)
	}
}

// idleChan returns a channel that is closed once no write is in flight.
func (l *writeLog) idleChan() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.idle
}

// replaced records that a controller write of the Foo key replaced
// resourceVersion before with after.
//
// A write whose answer carries before made no new version (a no-op, or the
// removal of a deleting Foo's last finalizer, which deletes it): there is
// nothing newer to follow.
func (l *writeLog) replaced(key, before, after string) {
	if before == "" || before == after {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.chain(key, before, after)
}

// deletedBy records that a controller write of the Foo key replaced
// resourceVersion before by deleting the Foo (the last finalizer went).
func (l *writeLog) deletedBy(key, before string) {
	if before == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.chain(key, before, "")
}

// chain adds one own write to key's chain; after is "" for a deletion.
// l.mu must be held.
func (l *writeLog) chain(key, before, after string) {
	c, ok := l.own[key]
	if !ok || c.deleted || c.latest != before {
		c = ownChain{replaced: map[string]bool{}} // not a chain of own writes: start again
	}
	c.replaced[before] = true
	c.latest, c.deleted = after, after == ""
	l.own[key] = c
	if len(l.own) > maxOwnChains {
		// A deleted Foo's chain is forgotten only when the cache catches
		// up, which a Foo gone for good never asks: drop those, so that a
		// page open for hours keeps a bounded log.
		for k, c := range l.own {
			if c.deleted && k != key {
				delete(l.own, k)
			}
		}
	}
}

// maxOwnChains bounds the write chains kept before those of deleted Foos
// are dropped.
const maxOwnChains = 256

// newerOwn tells whether cached is a version the controller's own write
// chain for the Foo key replaced: then it returns the version its latest
// write made, or deleted when that write deleted the Foo. Otherwise it
// returns ok false and forgets the chain: the cache has caught up.
func (l *writeLog) newerOwn(key, cached string) (latest string, deleted, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, found := l.own[key]
	if found && c.replaced[cached] {
		return c.latest, c.deleted, true
	}
	delete(l.own, key)
	return "", false, false
}

// note records what the server answered a write.
func (l *writeLog) note(resource, verb, key string, answer writeAnswer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answers[resource+" "+verb+" "+key] = answer
}

// take returns and forgets what the server answered a write (the zero
// writeAnswer if nothing was noted).
func (l *writeLog) take(resource, verb, key string) writeAnswer {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := resource + " " + verb + " " + key
	a := l.answers[k]
	delete(l.answers, k)
	return a
}

// done unregisters a write whose line has been printed.
func (l *writeLog) done(resource, verb, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := resource + " " + verb + " " + key
	if l.inflight[k] > 0 {
		if l.inflight[k]--; l.inflight[k] == 0 {
			delete(l.inflight, k)
		}
		l.releaseLocked()
	}
}
