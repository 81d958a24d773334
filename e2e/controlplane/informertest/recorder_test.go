package informertest

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informerlab/informerlab/deltafifo"
)

// recorder is a ResourceEventHandler spy: from the calls alone it keeps its
// own view of the objects (key -> resourceVersion), and it checks that each
// call fits that view: an add of an unknown key, an update whose old object
// is the state it last saw, a delete of a known key. It counts calls and
// tombstones. It is safe for concurrent use.
type recorder struct {
	delay time.Duration // spent in every call: a slow handler

	mu         sync.Mutex // guards the fields below
	view       map[string]string
	problems   []string
	calls      int
	tombstones int
	changed    chan struct{} // signalled (without blocking) after every call
}

func newRecorder(delay time.Duration) *recorder {
	return &recorder{delay: delay, view: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (r *recorder) record(f func()) {
	if r.delay > 0 {
		time.Sleep(r.delay) // the handler's own work, not a wait for anything
	}
	r.mu.Lock()
	r.calls++
	f()
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) OnAdd(obj any, _ bool) {
	r.record(func() {
		key, rv := keyRV(obj)
		if old, ok := r.view[key]; ok {
			r.problems = append(r.problems, fmt.Sprintf("add %s@%s: already had @%s", key, rv, old))
		}
		r.view[key] = rv
	})
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	r.record(func() {
		key, rv := keyRV(newObj)
		_, oldRV := keyRV(oldObj)
		if have, ok := r.view[key]; !ok || have != oldRV {
			r.problems = append(r.problems, fmt.Sprintf("update %s@%s->%s: had %q (known %v)", key, oldRV, rv, have, ok))
		}
		r.view[key] = rv
	})
}

func (r *recorder) OnDelete(obj any) {
	r.record(func() {
		if t, ok := obj.(deltafifo.DeletedFinalStateUnknown); ok {
			r.tombstones++
			obj = t.Obj
		}
		key, rv := keyRV(obj)
		if _, ok := r.view[key]; !ok {
			r.problems = append(r.problems, fmt.Sprintf("delete %s@%s: unknown key", key, rv))
		}
		delete(r.view, key)
	})
}

// snapshot returns the view and the problems so far.
func (r *recorder) snapshot() (map[string]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.view), slices.Clone(r.problems)
}

// counts returns the number of calls and of tombstones so far.
func (r *recorder) counts() (calls, tombstones int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, r.tombstones
}

// has reports whether the view holds key at resourceVersion rv.
func (r *recorder) has(key, rv string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.view[key] == rv
}

// keyRV returns an object's namespace/name and resourceVersion.
func keyRV(obj any) (string, string) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T>", obj), ""
	}
	return m.GetNamespace() + "/" + m.GetName(), m.GetResourceVersion()
}
