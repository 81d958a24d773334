package workqueue

// fifo is a first-in first-out ring buffer. Push and pop are O(1); once the buffer
// has grown to the queue's high-water mark they allocate nothing, and it shrinks
// again when it has stayed mostly empty for a while. Popped slots are zeroed so the
// garbage collector can reclaim what they pointed to. Not safe for concurrent use.
type fifo[T any] struct {
	buf  []T // len(buf) is zero or a power of two
	head int // index of the oldest element
	n    int // number of elements

	// Shrinking looks at windows of len(buf) pops: a buffer whose length never
	// went above an eighth of it during a whole window is halved. A queue whose
	// length swings back and forth (workers keeping up with a producer) keeps its
	// buffer instead of reallocating on every swing; one that has drained after a
	// burst gives the memory back, half a window at a time.
	windowPops int // pops in the current window
	windowPeak int // the most elements held during the current window
}

const fifoMinSize = 16

func (f *fifo[T]) len() int { return f.n }

func (f *fifo[T]) push(x T) {
	if f.n == len(f.buf) {
		f.resize(max(2*len(f.buf), fifoMinSize))
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = x
	f.n++
	f.windowPeak = max(f.windowPeak, f.n)
}

// pop removes and returns the oldest element; the fifo must not be empty.
func (f *fifo[T]) pop() T {
	var zero T
	x := f.buf[f.head]
	f.buf[f.head] = zero
	f.head = (f.head + 1) & (len(f.buf) - 1)
	f.n--
	if f.windowPops++; f.windowPops >= len(f.buf) {
		if len(f.buf) > 4*fifoMinSize && f.windowPeak <= len(f.buf)/8 {
			f.resize(len(f.buf) / 2)
		}
		f.windowPops, f.windowPeak = 0, f.n
	}
	return x
}

// at returns the i-th oldest element, 0 <= i < len.
func (f *fifo[T]) at(i int) T {
	return f.buf[(f.head+i)&(len(f.buf)-1)]
}

func (f *fifo[T]) resize(size int) {
	buf := make([]T, size)
	for i := range f.n {
		buf[i] = f.at(i)
	}
	f.buf, f.head = buf, 0
}
