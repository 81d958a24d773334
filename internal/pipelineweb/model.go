package pipelineweb

import (
	"slices"
	"sync"

	"github.com/informerlab/informerlab/informer"
)

// Model is the live state of every box of the diagram, as the page shows
// it. Most of it is derived from the events, in order, by the rules of the
// component each box stands for (a DeltaFIFO keeps one entry per key and
// appends to it; a workqueue never hands out a key that is processing); the
// caches and the Reflectors' last resourceVersions are read from the real
// informers at each [Model.Snapshot].
//
// A Model is safe for concurrent use. The zero value is not usable; use
// [NewModel].
type Model struct {
	mu sync.Mutex // guards everything below
	// seq is the Seq of the last event applied.
	seq        uint64
	reflectors map[string]*ReflectorState // by kind
	fifo       map[string]*fifoQueue      // by kind
	popped     []FIFOEntry                // the last maxPopped pops, oldest first
	handlers   map[string]*handlerState   // by kind
	queues     map[string]*queueState     // by controller
	informers  map[string]informer.SharedIndexInformer
	kinds      []string // in the order they were first seen
}

// NewModel returns an empty Model.
func NewModel() *Model {
	return &Model{
		reflectors: map[string]*ReflectorState{},
		fifo:       map[string]*fifoQueue{},
		handlers:   map[string]*handlerState{},
		queues:     map[string]*queueState{},
		informers:  map[string]informer.SharedIndexInformer{},
	}
}

// SetInformer names the informer of kind, whose cache and last
// resourceVersion each Snapshot reads.
func (m *Model) SetInformer(kind string, inf informer.SharedIndexInformer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.informers[kind] = inf
	m.sawKindLocked(kind)
}

type fifoQueue struct {
	keys   []string            // in queue order
	deltas map[string][]string // by key
}

type handlerState struct {
	received int
	// pending are the keys dispatched to handlers and not yet handled, one
	// entry per handler notified, oldest first.
	pending []string
}

// maxPopped is how many pops a snapshot recalls.
const maxPopped = 8

// maxPending bounds a handler backlog the model follows.
const maxPending = 10000

type queueState struct {
	waiting    []string
	dirty      map[string]bool
	processing map[string]bool
	retries    map[string]*Retry
	busy       string
	busySince  int64
	outcomes   map[string]int
	last       string
}

func (m *Model) sawKindLocked(kind string) {
	if kind != "" && !slices.Contains(m.kinds, kind) {
		m.kinds = append(m.kinds, kind)
	}
}

func (m *Model) reflectorLocked(kind string) *ReflectorState {
	r := m.reflectors[kind]
	if r == nil {
		m.sawKindLocked(kind)
		r = &ReflectorState{Kind: kind, State: "new"}
		m.reflectors[kind] = r
	}
	return r
}

func (m *Model) fifoLocked(kind string) *fifoQueue {
	q := m.fifo[kind]
	if q == nil {
		m.sawKindLocked(kind)
		q = &fifoQueue{deltas: map[string][]string{}}
		m.fifo[kind] = q
	}
	return q
}

func (m *Model) handlerLocked(kind string) *handlerState {
	h := m.handlers[kind]
	if h == nil {
		m.sawKindLocked(kind)
		h = &handlerState{}
		m.handlers[kind] = h
	}
	return h
}

func (m *Model) queueLocked(ctrl string) *queueState {
	q := m.queues[ctrl]
	if q == nil {
		q = &queueState{dirty: map[string]bool{}, processing: map[string]bool{}, retries: map[string]*Retry{}, outcomes: map[string]int{}}
		m.queues[ctrl] = q
	}
	return q
}

// queuedKeys returns the keys of kind waiting in the DeltaFIFO.
func (m *Model) queuedKeys(kind string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if q := m.fifo[kind]; q != nil {
		return slices.Clone(q.keys)
	}
	return nil
}

// cachedKeys returns the keys in kind's cache.
func (m *Model) cachedKeys(kind string) []string {
	m.mu.Lock()
	inf := m.informers[kind]
	m.mu.Unlock()
	if inf == nil {
		return nil
	}
	return inf.GetStore().ListKeys()
}

// cached describes the cached object of kind at key.
func (m *Model) cached(kind, key string) (CachedObject, bool) {
	m.mu.Lock()
	inf := m.informers[kind]
	m.mu.Unlock()
	if inf == nil {
		return CachedObject{}, false
	}
	obj, ok, err := inf.GetStore().GetByKey(key)
	if err != nil || !ok {
		return CachedObject{}, false
	}
	return cachedObject(kind, obj)
}

// apply updates the model with e; the Hub calls it in Seq order.
func (m *Model) apply(e Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq = e.Seq
	switch e.Op {
	case OpList:
		if e.Key == "" {
			r := m.reflectorLocked(e.Kind)
			if r.Lists > 0 {
				r.Relists++
			}
			r.Lists++
		}
	case OpWatch:
		if e.Verb == "open" {
			m.reflectorLocked(e.Kind).Watches++
		}
	case OpWatchEvent:
		m.reflectorLocked(e.Kind).Events++
	case OpReflector:
		r := m.reflectorLocked(e.Kind)
		if e.State != "" {
			r.State, r.Cause, r.Since = e.State, e.Cause, e.Time
			r.Recent = append(r.Recent, e.State)
			if len(r.Recent) > 6 {
				r.Recent = r.Recent[len(r.Recent)-6:]
			}
		}
		if e.DelayMS > 0 {
			r.BackoffMS = e.DelayMS
		}
	case OpQueued:
		q := m.fifoLocked(e.Kind)
		if _, ok := q.deltas[e.Key]; !ok {
			q.keys = append(q.keys, e.Key)
		}
		q.deltas[e.Key] = append(q.deltas[e.Key], e.Deltas...)
	case OpPop:
		m.popped = append(m.popped, FIFOEntry{Kind: e.Kind, Key: e.Key, Deltas: e.Deltas})
		if len(m.popped) > maxPopped {
			m.popped = m.popped[1:]
		}
		q := m.fifoLocked(e.Kind)
		if _, ok := q.deltas[e.Key]; ok {
			delete(q.deltas, e.Key)
			q.keys = slices.DeleteFunc(q.keys, func(k string) bool { return k == e.Key })
		}
	case OpDispatch:
		h := m.handlerLocked(e.Kind)
		for range e.Count {
			if len(h.pending) >= maxPending {
				h.pending = h.pending[1:]
			}
			h.pending = append(h.pending, e.Key)
		}
	case OpHandler:
		h := m.handlerLocked(e.Kind)
		h.received++
		// A notification replayed to a new handler was never dispatched:
		// it matches nothing.
		if i := slices.Index(h.pending, e.Key); i >= 0 {
			h.pending = slices.Delete(h.pending, i, i+1)
		}
	case OpEnqueue:
		q := m.queueLocked(e.Controller)
		if q.dirty[e.Key] {
			break // already waiting, or will be after Done: adds collapse
		}
		q.dirty[e.Key] = true
		if !q.processing[e.Key] {
			q.waiting = append(q.waiting, e.Key)
		}
	case OpGetKey:
		q := m.queueLocked(e.Controller)
		q.waiting = slices.DeleteFunc(q.waiting, func(k string) bool { return k == e.Key })
		delete(q.dirty, e.Key)
		q.processing[e.Key] = true
		q.busy, q.busySince = e.Key, e.Time
		if r := q.retries[e.Key]; r != nil {
			r.Running = true
		}
	case OpReconcile:
		q := m.queueLocked(e.Controller)
		// Done: a key added again while it was processing waits again.
		delete(q.processing, e.Key)
		if q.dirty[e.Key] {
			q.waiting = append(q.waiting, e.Key)
		}
		if q.busy == e.Key {
			q.busy, q.busySince = "", 0
		}
		q.outcomes[e.Verb]++
		q.last = e.Text
		if e.Verb != "error" {
			delete(q.retries, e.Key) // Forget
		}
	case OpBackoff:
		q := m.queueLocked(e.Controller)
		q.retries[e.Key] = &Retry{Key: e.Key, Failures: e.Failures, DelayMS: e.DelayMS,
			NextAt: e.Time + int64(e.DelayMS)}
	}
}
