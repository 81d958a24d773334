package workqueue

// recycleBlock is how many entries a recycler allocates at once, and
// maxSpare how many freed entries it keeps for reuse at most: a queue that
// shrinks from a large backlog gives the rest back to the garbage collector.
const (
	recycleBlock = 32
	maxSpare     = 1024
)

// recycler hands out entries (the waiting set's and the priority queue's)
// and takes them back when their item leaves, so a queue in steady state
// allocates nothing per item. New entries come in blocks of recycleBlock,
// one allocation for many items. Not safe for concurrent use; its owner
// guards it.
//
// An entry must be given back only once nothing refers to it any more: the
// next get hands it out again.
type recycler[E any] struct {
	spare []*E
}

// get returns a zeroed entry.
func (r *recycler[E]) get() *E {
	if n := len(r.spare); n > 0 {
		e := r.spare[n-1]
		r.spare[n-1] = nil
		r.spare = r.spare[:n-1]
		return e
	}
	block := make([]E, recycleBlock)
	for i := range block[1:] {
		r.spare = append(r.spare, &block[i+1])
	}
	return &block[0]
}

// put takes e back, zeroed, unless enough entries are spare already.
func (r *recycler[E]) put(e *E) {
	if len(r.spare) >= maxSpare {
		return
	}
	var zero E
	*e = zero
	r.spare = append(r.spare, e)
}
