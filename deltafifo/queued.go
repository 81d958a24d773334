package deltafifo

import "slices"

// Queued returns what the queue holds, in the order Pop will take it: one
// Deltas per key, its deltas oldest first. It is what Pop would hand out, one
// after another, if nothing more arrived. It is for tests and for looking
// inside the queue while learning; an informer never needs it.
//
// The slices are copies, so changing them changes nothing queued; the
// objects in them are the queued ones, never to be modified.
//
// client-go: none (tools/cache's delta_fifo_test.go reads the private items
// and queue to see the same).
func (f *DeltaFIFO) Queued() []Deltas {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := f.queue.queued()
	out := make([]Deltas, len(keys))
	for i, key := range keys {
		out[i] = slices.Clone(f.items[key])
	}
	return out
}

// Queued returns every queued delta in the order Pop will take them, oldest
// first: one line of deltas, where a DeltaFIFO keeps one line of keys. A key
// appears as often as it has deltas, and an atomic RealFIFO's [ReplacedAll]
// and [SyncAll] deltas are there too. It is for tests and for looking inside
// the queue while learning; an informer never needs it.
//
// The slice is a copy; the objects in it are the queued ones, never to be
// modified.
//
// client-go: none (tools/cache's the_real_fifo_test.go reads the private
// items to see the same).
func (f *RealFIFO) Queued() []Delta {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Delta, len(f.items))
	for i, it := range f.items {
		out[i] = it.Delta
	}
	return out
}
