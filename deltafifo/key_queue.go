package deltafifo

import "slices"

// shrinkAbove is the size from which a drained DeltaFIFO gives its memory
// back: a line of keys or an items map that once held more entries than this
// is rebuilt small once the queue has emptied (or, for the map, shrunk to a
// sixteenth of its peak). Below it, keeping the memory for the next burst is
// cheaper than allocating it again. Go maps never shrink by themselves, so
// without this an informer would keep, for as long as it runs, a map as big
// as its initial list.
const shrinkAbove = 1024

// keyQueue is the line of keys of a DeltaFIFO and of a FIFO: a slice
// consumed from the front. Popping only moves head, so a queue that keeps
// emptying and filling reuses the same memory instead of allocating for
// every key; the popped prefix is cleared as it goes, and compacted away
// before the slice would grow.
//
// Invariant: keys[:head] are all "", keys[head:] are the queued keys, oldest
// first.
type keyQueue struct {
	keys []string
	head int
}

// len returns how many keys are queued.
func (q *keyQueue) len() int { return len(q.keys) - q.head }

// queued returns the queued keys, oldest first. The slice is the queue's own
// memory: valid until the next push or pop, and not to be modified.
func (q *keyQueue) queued() []string { return q.keys[q.head:] }

// push adds key at the back.
func (q *keyQueue) push(key string) {
	if len(q.keys) == cap(q.keys) && q.head >= len(q.keys)/2 {
		// Full, and at least half of it popped: slide the queued keys to
		// the front rather than grow.
		n := copy(q.keys, q.keys[q.head:])
		clear(q.keys[n:])
		q.keys, q.head = q.keys[:n], 0
	}
	q.keys = append(q.keys, key)
}

// pop removes and returns the key at the front. The queue must not be empty.
func (q *keyQueue) pop() string {
	key := q.keys[q.head]
	q.keys[q.head] = ""
	q.head++
	q.restartIfEmpty()
	return key
}

// remove takes key out of the line, wherever it stands, and returns its
// position (0 is the front), or -1 if it is not queued. It costs a scan and
// a shift of the keys behind it: only the classic [FIFO] removes keys, on
// Delete, and it is not on an informer's path.
func (q *keyQueue) remove(key string) int {
	i := slices.Index(q.queued(), key)
	if i < 0 {
		return -1
	}
	at := q.head + i
	copy(q.keys[at:], q.keys[at+1:])
	q.keys[len(q.keys)-1] = ""
	q.keys = q.keys[:len(q.keys)-1]
	q.restartIfEmpty()
	return i
}

// restartIfEmpty moves an empty queue back to the front of its memory, and
// lets a big one go.
func (q *keyQueue) restartIfEmpty() {
	if q.head < len(q.keys) {
		return
	}
	q.keys, q.head = q.keys[:0], 0
	if cap(q.keys) > shrinkAbove {
		q.keys = nil
	}
}
