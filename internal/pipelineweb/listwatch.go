package pipelineweb

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// Resource wraps the API handle an informer of kind lists and watches
// through, for the page alone: every LIST, WATCH and watch event passes the
// [Valve] (Valved) and becomes a step 1 Event (through the ListerWatcher
// of the Recorder's own pipelinetrace.Stream, whose only sink is Trace).
// Writes go straight through. Where the terminal narrates too, give both
// sinks to one Stream instead.
func (r *Recorder) Resource(kind string, res sc.Resource) sc.Resource {
	return tappedResource{Resource: res, lw: r.stream.ListerWatcher(r.Valved(res), kind)}
}

type tappedResource struct {
	sc.Resource
	lw reflector.ListerWatcher
}

func (t tappedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return t.lw.List(ctx, opts)
}

func (t tappedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return t.lw.Watch(ctx, opts)
}

// Valved wraps an API handle so that its LISTs, WATCHes and watch events
// pass the [Valve]: paused, they wait; stepped, one goes through. Writes go
// straight through.
func (r *Recorder) Valved(res sc.Resource) sc.Resource {
	return valvedResource{Resource: res, valve: &r.valve}
}

type valvedResource struct {
	sc.Resource
	valve *Valve
}

func (v valvedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := v.valve.Pass(ctx); err != nil {
		return nil, err
	}
	return v.Resource.List(ctx, opts)
}

func (v valvedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := v.valve.Pass(ctx); err != nil {
		return nil, err
	}
	w, err := v.Resource.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	tw := &valvedWatch{valve: v.valve, inner: w, out: make(chan watch.Event), stopped: make(chan struct{}), wake: make(chan struct{}, 1)}
	go tw.read()
	go tw.deliver()
	return tw, nil
}

// valvedWatch forwards one watch's events through the valve, in order. One
// goroutine reads the server's events as they come (so that a paused valve
// never makes the server cut the watch off as too slow), another delivers
// them; both end after Stop or when the server ends the watch.
type valvedWatch struct {
	valve *Valve
	inner watch.Interface
	out   chan watch.Event

	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop

	mu    sync.Mutex // guards held and ended
	held  []watch.Event
	ended bool
	wake  chan struct{} // capacity 1: held or ended changed
}

func (w *valvedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *valvedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

func (w *valvedWatch) read() {
	for ev := range w.inner.ResultChan() {
		w.mu.Lock()
		w.held = append(w.held, ev)
		w.mu.Unlock()
		w.poke()
	}
	w.mu.Lock()
	w.ended = true
	w.mu.Unlock()
	w.poke()
}

func (w *valvedWatch) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *valvedWatch) deliver() {
	defer close(w.out)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-w.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		w.mu.Lock()
		var ev watch.Event
		have := len(w.held) > 0
		if have {
			ev = w.held[0]
			w.held = w.held[1:]
		}
		ended := w.ended
		w.mu.Unlock()
		if !have {
			if ended {
				return
			}
			select {
			case <-w.wake:
				continue
			case <-w.stopped:
				return
			}
		}
		if err := w.valve.Pass(ctx); err != nil {
			return
		}
		select {
		case w.out <- ev:
		case <-w.stopped:
			return
		}
	}
}

// errorSummary renders an API error as "410 Expired".
func errorSummary(err error) string {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return err.Error()
	}
	st := se.Status()
	return fmt.Sprintf("%d %s", st.Code, st.Reason)
}
