package pipelineweb

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
)

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
