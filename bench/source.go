package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// ErrNoList is what Source.List returns when no list was prepared with
// SetList since the last List.
var ErrNoList = errors.New("bench: no list prepared")

// Source is the neutral in-memory list-watch source both informers read in
// the end-to-end benchmarks (diagram step 1). It has no storage: a benchmark
// prepares the object a List returns, and writes the events a Watch delivers.
// That way both implementations get the very same objects and events, and the
// source costs the same for both.
//
//   - List hands over the list given to SetList and forgets it, so after a
//     sync the cache, not the source, is what keeps the objects alive.
//   - Watch opens a new watch each time it is called; Send writes to the
//     newest one, waiting for it to open if none is open yet.
//   - BreakWatch ends the open watch with a 410 Expired error, which makes
//     either Reflector list again.
//
// Its methods List and Watch are those of informerlab's
// reflector.ListerWatcher. A Source is safe for concurrent use.
type Source struct {
	chanSize int

	mu sync.Mutex // guards list, cur, opened and watches
	// list is the next List result, nil once handed over.
	list runtime.Object
	// cur is the newest watch; nil before the first Watch.
	cur *watcher
	// opened is closed, and replaced, each time a watch opens.
	opened chan struct{}
	// watches counts the watches opened so far.
	watches int

	listed chan time.Time
}

// NewSource returns a Source whose watches buffer chanSize events (at least 1).
func NewSource(chanSize int) *Source {
	return &Source{
		chanSize: max(chanSize, 1),
		opened:   make(chan struct{}),
		listed:   make(chan time.Time, 16),
	}
}

// SetList prepares the result of the next List. The Source keeps it only
// until that List.
func (s *Source) SetList(list runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = list
}

// Listed delivers the time of each List call that returned a list (it keeps
// the last 16 undelivered ones and drops the rest).
func (s *Source) Listed() <-chan time.Time { return s.listed }

// List returns the prepared list and forgets it, or ErrNoList.
func (s *Source) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	list := s.list
	s.list = nil
	s.mu.Unlock()
	if list == nil {
		return nil, ErrNoList
	}
	select {
	case s.listed <- time.Now():
	default:
	}
	return list, nil
}

// Watch opens a new watch. It ends when ctx is done, when the caller stops
// it, or when BreakWatch ends it.
func (s *Source) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := newWatcher(s.chanSize)
	s.mu.Lock()
	s.cur = w
	s.watches++
	close(s.opened)
	s.opened = make(chan struct{})
	s.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			w.Stop()
		case <-w.done:
		}
	}()
	return w, nil
}

// Watches returns how many watches have been opened so far.
func (s *Source) Watches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watches
}

// WaitForWatch blocks until at least n watches have been opened and the
// newest is still open, or ctx is done.
func (s *Source) WaitForWatch(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		ready := s.watches >= n && s.cur != nil && !s.cur.stopped()
		opened := s.opened
		s.mu.Unlock()
		if ready {
			return nil
		}
		select {
		case <-opened:
		case <-ctx.Done():
			return fmt.Errorf("bench: waiting for watch %d: %w", n, ctx.Err())
		}
	}
}

// Send delivers ev on the newest watch, waiting for one to be open. It fails
// if ctx ends first or if that watch is stopped before taking the event.
func (s *Source) Send(ctx context.Context, ev watch.Event) error {
	if err := s.WaitForWatch(ctx, 1); err != nil {
		return err
	}
	s.mu.Lock()
	w := s.cur
	s.mu.Unlock()
	return w.send(ctx, ev)
}

// BreakWatch ends the newest watch with a 410 Expired error event, as an API
// server does when the watch has fallen too far behind: the Reflector has to
// list again.
func (s *Source) BreakWatch(ctx context.Context) error {
	status := &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    410,
		Reason:  metav1.StatusReasonExpired,
		Message: "bench: too old resource version",
	}
	return s.Send(ctx, watch.Event{Type: watch.Error, Object: status})
}

// watcher is one open watch. Stop closes done first, so a blocked send gives
// up, then closes result under the write lock, which waits for every send
// in progress: nothing is ever sent on a closed channel.
type watcher struct {
	done     chan struct{}
	stopOnce sync.Once

	mu sync.RWMutex // guards result being closed (read-held while sending)
	// result is the channel of ResultChan; closed by Stop.
	result chan watch.Event
	closed bool
}

func newWatcher(size int) *watcher {
	return &watcher{done: make(chan struct{}), result: make(chan watch.Event, size)}
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.mu.Lock()
		defer w.mu.Unlock()
		close(w.result)
		w.closed = true
	})
}

func (w *watcher) stopped() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

func (w *watcher) send(ctx context.Context, ev watch.Event) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return errWatchStopped
	}
	select {
	case w.result <- ev:
		return nil
	case <-w.done:
		return errWatchStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errWatchStopped = errors.New("bench: the watch was stopped before it took the event")
