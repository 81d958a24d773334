package deltafifo

import (
	"container/heap"
	"fmt"
	"sync"

	"github.com/informerlab/informerlab/indexer"
)

// LessFunc reports whether a should be popped before b. It must be a strict
// weak order (never less(a, a); if less(a, b) and less(b, c), then
// less(a, c)), or Pop's order means nothing.
//
// client-go: tools/cache.LessFunc.
type LessFunc func(a, b any) bool

// Heap is a keyed priority queue: like a store it holds one object per key,
// and like a queue it hands them out, but in the order a [LessFunc] gives
// (smallest first) instead of arrival order. Adding an object whose key is
// held replaces the object and moves it to its new place.
//
// It is not on the informer's path: no informer or controller here uses it.
// It is what to reach for when work must be taken in priority order (the
// earliest deadline, the lowest retry count) and each item may change its
// priority while it waits. A workqueue with priorities is
// [github.com/informerlab/informerlab/workqueue.PriorityQueue].
//
// It is safe for concurrent use. Its zero value is not usable: call
// [NewHeap].
//
// client-go: tools/cache.Heap.
type Heap struct {
	keyFunc indexer.KeyFunc

	cond *sync.Cond // wakes Pop when an object arrives or the heap closes; its L is &mu

	mu     sync.Mutex // guards data and closed
	data   heapData
	closed bool
}

// heapData is the heap itself, for container/heap to keep in order.
//
// Invariants (checkInvariants verifies them):
//   - heap order: no entry is less than its parent, entries[(i-1)/2];
//   - index holds exactly the keys of entries, each with its position:
//     index[entries[i].key] == i.
type heapData struct {
	less    LessFunc
	entries []heapEntry    // entries[0] is the next to pop
	index   map[string]int // key -> position in entries
}

type heapEntry struct {
	key string
	obj any
}

func (d *heapData) Len() int           { return len(d.entries) }
func (d *heapData) Less(i, j int) bool { return d.less(d.entries[i].obj, d.entries[j].obj) }

func (d *heapData) Swap(i, j int) {
	d.entries[i], d.entries[j] = d.entries[j], d.entries[i]
	d.index[d.entries[i].key] = i
	d.index[d.entries[j].key] = j
}

// Push and Pop are for container/heap only: they add at and take from the
// end of entries, and heap.Push and heap.Pop restore the order.
func (d *heapData) Push(x any) {
	e := x.(heapEntry)
	d.index[e.key] = len(d.entries)
	d.entries = append(d.entries, e)
}

func (d *heapData) Pop() any {
	last := len(d.entries) - 1
	e := d.entries[last]
	d.entries[last] = heapEntry{}
	d.entries = d.entries[:last]
	delete(d.index, e.key)
	return e
}

// set stores obj under key: a new key is pushed, a held one gets obj and
// moves to its new place. With ifNotPresent, a held key is left alone.
func (d *heapData) set(key string, obj any, ifNotPresent bool) {
	i, held := d.index[key]
	switch {
	case !held:
		heap.Push(d, heapEntry{key: key, obj: obj})
	case !ifNotPresent:
		d.entries[i].obj = obj
		heap.Fix(d, i)
	}
}

// NewHeap returns an empty Heap that keys objects with keyFunc
// (indexer.MetaNamespaceKeyFunc if nil) and pops them in the order less
// gives. It starts no goroutine. A nil less is a programming error: NewHeap
// panics.
func NewHeap(keyFunc indexer.KeyFunc, less LessFunc) *Heap {
	if less == nil {
		panic("deltafifo: NewHeap needs a LessFunc")
	}
	if keyFunc == nil {
		keyFunc = indexer.MetaNamespaceKeyFunc
	}
	h := &Heap{keyFunc: keyFunc, data: heapData{less: less, index: map[string]int{}}}
	h.cond = sync.NewCond(&h.mu)
	return h
}

// Add stores obj under its key, replacing the object held there, and puts it
// in its place in the order. After Close it returns [ErrFIFOClosed].
func (h *Heap) Add(obj any) error {
	return h.BulkAdd([]any{obj})
}

// Update is Add.
func (h *Heap) Update(obj any) error {
	return h.Add(obj)
}

// BulkAdd adds every object of list as Add does, under one lock, so a
// waiting Pop sees all of them or none. It is all or nothing: if any object
// cannot be keyed, it returns the error and adds nothing.
func (h *Heap) BulkAdd(list []any) error {
	return h.add("add", list, false)
}

// AddIfNotPresent stores obj unless its key is already held; then the held
// object stays as it is. A consumer that retries an object it popped uses it
// so as not to overwrite a newer version the producer added meanwhile.
func (h *Heap) AddIfNotPresent(obj any) error {
	return h.add("add if not present", []any{obj}, true)
}

func (h *Heap) add(op string, list []any, ifNotPresent bool) error {
	keys := make([]string, len(list))
	for i, obj := range list {
		key, err := h.keyOf(obj)
		if err != nil {
			return fmt.Errorf("deltafifo: heap %s: %w", op, err)
		}
		keys[i] = key
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ErrFIFOClosed
	}
	for i, key := range keys {
		h.data.set(key, list[i], ifNotPresent)
	}
	h.cond.Broadcast()
	return nil
}

// Delete removes the object with obj's key. Unlike a store's Delete, it
// returns an error if no object has that key.
func (h *Heap) Delete(obj any) error {
	key, err := h.keyOf(obj)
	if err != nil {
		return fmt.Errorf("deltafifo: heap delete: %w", err)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	i, held := h.data.index[key]
	if !held {
		return fmt.Errorf("deltafifo: heap delete: no object with key %q", key)
	}
	heap.Remove(&h.data, i)
	return nil
}

// Pop blocks until the heap holds an object, then removes and returns the
// least one. Once the heap is closed and empty, it returns [ErrFIFOClosed];
// Close wakes a Pop that is waiting.
func (h *Heap) Pop() (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.data.Len() == 0 {
		if h.closed {
			return nil, ErrFIFOClosed
		}
		h.cond.Wait()
	}
	return heap.Pop(&h.data).(heapEntry).obj, nil
}

// List returns every object held, in no particular order.
func (h *Heap) List() []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]any, len(h.data.entries))
	for i, e := range h.data.entries {
		out[i] = e.obj
	}
	return out
}

// ListKeys returns every key held, in no particular order.
func (h *Heap) ListKeys() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.data.entries))
	for i, e := range h.data.entries {
		out[i] = e.key
	}
	return out
}

// Get returns the object held under obj's key.
func (h *Heap) Get(obj any) (item any, exists bool, err error) {
	key, err := h.keyOf(obj)
	if err != nil {
		return nil, false, fmt.Errorf("deltafifo: heap get: %w", err)
	}
	return h.GetByKey(key)
}

// GetByKey returns the object held under key.
func (h *Heap) GetByKey(key string) (item any, exists bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, held := h.data.index[key]
	if !held {
		return nil, false, nil
	}
	return h.data.entries[i].obj, true, nil
}

// Close marks the heap closed: Add, AddIfNotPresent and BulkAdd fail from
// then on, and every blocked Pop wakes. Pop keeps handing out what is held
// and returns [ErrFIFOClosed] once the heap is empty. Close is idempotent.
func (h *Heap) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (h *Heap) IsClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

func (h *Heap) keyOf(obj any) (string, error) {
	key, err := h.keyFunc(obj)
	if err != nil {
		return "", indexer.KeyError{Obj: obj, Err: err}
	}
	return key, nil
}
