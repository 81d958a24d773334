package pipelineweb

import (
	"slices"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"

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

// State is a snapshot of every box, as JSON for the page.
type State struct {
	// Seq is the last event the snapshot includes.
	Seq        uint64           `json:"seq"`
	Reflectors []ReflectorState `json:"reflectors"`
	FIFO       []FIFOEntry      `json:"fifo"`
	// Popped are the last keys popped, newest first, with every delta
	// each pop handed over at once: the DeltaFIFO's coalescing.
	Popped []FIFOEntry    `json:"popped"`
	Cache  []CachedObject `json:"cache"`
	// CacheTotal is the number of cached objects; Cache holds at most
	// MaxCachedShown of them.
	CacheTotal int            `json:"cacheTotal"`
	Handlers   []HandlerState `json:"handlers"`
	Queues     []QueueState   `json:"queues"`
}

// MaxCachedShown bounds the cached objects a snapshot lists.
const MaxCachedShown = 200

// ReflectorState is one Reflector: where it is in its list-watch cycle.
type ReflectorState struct {
	Kind string `json:"kind"`
	// State is the Reflector's state ("listing", "watching", "backing off
	// to relist", ...); Cause is why it entered it.
	State string `json:"state"`
	Cause string `json:"cause,omitempty"`
	// Since is when it entered State (Unix ms).
	Since int64 `json:"since"`
	// LastSyncRV is the informer's LastSyncResourceVersion.
	LastSyncRV string `json:"lastSyncRV"`
	// Lists counts LISTs; Relists those after the first; Watches WATCHes;
	// Events the watch events delivered.
	Lists   int `json:"lists"`
	Relists int `json:"relists"`
	Watches int `json:"watches"`
	Events  int `json:"events"`
	// BackoffMS is the delay of the latest backoff.
	BackoffMS float64 `json:"backoffMs,omitempty"`
	// Recent are its last states, oldest first.
	Recent []string `json:"recent"`
}

// FIFOEntry is one key waiting in a DeltaFIFO, with its Deltas.
type FIFOEntry struct {
	Kind   string   `json:"kind"`
	Key    string   `json:"key"`
	Deltas []string `json:"deltas"`
}

// CachedObject is one object in an informer's cache.
type CachedObject struct {
	Kind       string `json:"kind"`
	Key        string `json:"key"`
	RV         string `json:"rv"`
	Generation int64  `json:"generation"`
	Deleting   bool   `json:"deleting,omitempty"`
}

// HandlerState is the handlers of one informer: how many notifications
// they received, and how many were dispatched but not yet handled (the
// backlog in their buffers).
type HandlerState struct {
	Kind     string `json:"kind"`
	Received int    `json:"received"`
	Backlog  int    `json:"backlog"`
}

// QueueState is one controller's workqueue and its worker.
type QueueState struct {
	Controller string `json:"controller"`
	// Waiting are the keys ready to be handed out, in order; Processing
	// those a worker holds; Dirty every key added since it was last handed
	// out (Waiting, and keys added again while processing).
	Waiting    []string `json:"waiting"`
	Processing []string `json:"processing"`
	Dirty      []string `json:"dirty"`
	// Retries are the failed keys waiting out their backoff.
	Retries []Retry `json:"retries"`
	// Busy is the key the worker reconciles ("" when idle), since BusySince.
	Busy      string `json:"busy"`
	BusySince int64  `json:"busySince,omitempty"`
	// Outcomes counts how Reconciles ended; Last is the latest one.
	Outcomes map[string]int `json:"outcomes"`
	Last     string         `json:"last,omitempty"`
}

// Retry is a failed key and its next attempt.
type Retry struct {
	Key      string  `json:"key"`
	Failures int     `json:"failures"`
	DelayMS  float64 `json:"delayMs"`
	// NextAt is when it is due (Unix ms); Running is set while a worker
	// holds it again.
	NextAt  int64 `json:"nextAt"`
	Running bool  `json:"running,omitempty"`
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

// Snapshot returns the state of every box now, reading the informers'
// caches.
func (m *Model) Snapshot() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := State{Seq: m.seq}
	for i := len(m.popped) - 1; i >= 0; i-- {
		p := m.popped[i]
		p.Deltas = slices.Clone(p.Deltas)
		st.Popped = append(st.Popped, p)
	}
	for _, kind := range m.kinds {
		if r := m.reflectors[kind]; r != nil {
			rs := *r
			rs.Recent = slices.Clone(r.Recent)
			if inf := m.informers[kind]; inf != nil {
				rs.LastSyncRV = inf.LastSyncResourceVersion()
			}
			st.Reflectors = append(st.Reflectors, rs)
		}
		if q := m.fifo[kind]; q != nil {
			for _, k := range q.keys {
				st.FIFO = append(st.FIFO, FIFOEntry{Kind: kind, Key: k, Deltas: slices.Clone(q.deltas[k])})
			}
		}
		if h := m.handlers[kind]; h != nil {
			st.Handlers = append(st.Handlers, HandlerState{Kind: kind, Received: h.received, Backlog: len(h.pending)})
		}
		if inf := m.informers[kind]; inf != nil {
			objs := inf.GetStore().List()
			st.CacheTotal += len(objs)
			for _, obj := range objs {
				if len(st.Cache) >= MaxCachedShown {
					break
				}
				if c, ok := cachedObject(kind, obj); ok {
					st.Cache = append(st.Cache, c)
				}
			}
		}
	}
	sort.SliceStable(st.Cache, func(i, j int) bool {
		a, b := st.Cache[i], st.Cache[j]
		if a.Kind != b.Kind {
			return slices.Index(m.kinds, a.Kind) < slices.Index(m.kinds, b.Kind)
		}
		return a.Key < b.Key
	})
	ctrls := make([]string, 0, len(m.queues))
	for c := range m.queues {
		ctrls = append(ctrls, c)
	}
	sort.Strings(ctrls)
	for _, c := range ctrls {
		st.Queues = append(st.Queues, m.queues[c].state(c))
	}
	return st
}

func (q *queueState) state(ctrl string) QueueState {
	qs := QueueState{
		Controller: ctrl,
		Waiting:    slices.Clone(q.waiting),
		Processing: sortedKeys(q.processing),
		Dirty:      sortedKeys(q.dirty),
		Busy:       q.busy,
		BusySince:  q.busySince,
		Outcomes:   map[string]int{},
		Last:       q.last,
	}
	for k, v := range q.outcomes {
		qs.Outcomes[k] = v
	}
	for _, r := range q.retries {
		qs.Retries = append(qs.Retries, *r)
	}
	sort.Slice(qs.Retries, func(i, j int) bool { return qs.Retries[i].Key < qs.Retries[j].Key })
	if qs.Waiting == nil {
		qs.Waiting = []string{}
	}
	return qs
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cachedObject describes a cached object.
func cachedObject(kind string, obj any) (CachedObject, bool) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return CachedObject{}, false
	}
	key := acc.GetName()
	if ns := acc.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	return CachedObject{Kind: kind, Key: key, RV: acc.GetResourceVersion(), Generation: acc.GetGeneration(),
		Deleting: acc.GetDeletionTimestamp() != nil}, true
}
