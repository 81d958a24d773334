package informer

import "reflect"

// ringBuffer is an unbounded FIFO of T kept in a circular slice that doubles
// when it is full. Writes never block and never drop: a listener's buffer is
// as large as its handler is behind. When the buffer empties after having
// grown past shrinkThreshold it drops back to its initial size, so one burst
// does not pin its peak memory for the rest of the process.
//
// It is not safe for concurrent use; processorListener guards it.
//
// Invariants: 0 <= count <= len(buf); the live elements are
// buf[head], buf[(head+1)%len(buf)], ... (count of them); every other slot
// holds the zero T, so nothing popped is kept reachable.
//
// client-go: k8s.io/utils/buffer.RingGrowing.
type ringBuffer[T any] struct {
	initial int
	buf     []T
	head    int // index of the oldest element
	count   int // number of live elements
}

// shrinkThreshold is the capacity above which an emptied buffer is released.
const shrinkThreshold = 1024

func newRingBuffer[T any](initial int) ringBuffer[T] {
	if initial < 1 {
		initial = 1
	}
	return ringBuffer[T]{initial: initial}
}

// Len returns the number of elements waiting.
func (r *ringBuffer[T]) Len() int { return r.count }

// WriteOne appends v, growing the buffer if it is full.
func (r *ringBuffer[T]) WriteOne(v T) {
	if r.count == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.count)%len(r.buf)] = v
	r.count++
}

// ReadOne removes and returns the oldest element; ok is false if there is none.
func (r *ringBuffer[T]) ReadOne() (v T, ok bool) {
	if r.count == 0 {
		return v, false
	}
	var zero T
	v = r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) % len(r.buf)
	r.count--
	if r.count == 0 {
		r.head = 0
		if len(r.buf) > shrinkThreshold {
			r.buf = nil
		}
	}
	return v, true
}

// Reset drops every element and releases the memory.
func (r *ringBuffer[T]) Reset() {
	r.buf, r.head, r.count = nil, 0, 0
}

// grow doubles the capacity (or allocates the initial one), moving the live
// elements to the front of the new slice in order.
func (r *ringBuffer[T]) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = r.initial
	}
	next := make([]T, size)
	n := copy(next, r.buf[r.head:])
	copy(next[n:], r.buf[:r.head])
	r.buf, r.head = next, 0
}

func (r *ringBuffer[T]) checkInvariants() error {
	if r.count < 0 || r.count > len(r.buf) {
		return errorf("ring buffer: count %d outside [0, %d]", r.count, len(r.buf))
	}
	if len(r.buf) == 0 {
		return nil
	}
	for i := r.count; i < len(r.buf); i++ {
		slot := (r.head + i) % len(r.buf)
		if !reflect.ValueOf(&r.buf[slot]).Elem().IsZero() {
			return errorf("ring buffer: free slot %d still holds a value", slot)
		}
	}
	return nil
}
