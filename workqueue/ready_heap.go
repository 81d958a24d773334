package workqueue

// priorityEntry is one item added and not yet handed out.
type priorityEntry[T comparable] struct {
	item     T
	priority int
	seq      uint64 // when it last joined the back of its priority level
	waiting  bool   // in the waiting set, not ready yet
	index    int    // position in the ready heap, -1 when not in it
}

// readyHeap implements heap.Interface: highest priority first, then lowest seq.
type readyHeap[T comparable] []*priorityEntry[T]

func (h readyHeap[T]) Len() int { return len(h) }
func (h readyHeap[T]) Less(i, j int) bool {
	if h[i].priority != h[j].priority {
		return h[i].priority > h[j].priority
	}
	return h[i].seq < h[j].seq
}
func (h readyHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *readyHeap[T]) Push(x any) {
	e := x.(*priorityEntry[T])
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *readyHeap[T]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}
