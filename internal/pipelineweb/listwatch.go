package pipelineweb

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	sc "github.com/informerlab/informerlab/samplecontroller"
)

// Resource wraps the API handle an informer of kind lists and watches
// through: every LIST, WATCH and watch event passes the [Valve] and is
// published as a step 1 Event. Writes go straight through.
func (r *Recorder) Resource(kind string, res sc.Resource) sc.Resource {
	return tappedResource{Resource: res, kind: kind, r: r}
}

type tappedResource struct {
	sc.Resource
	kind string
	r    *Recorder
}

func (t tappedResource) say(e Event) {
	e.Op, e.Tag, e.Kind = cmpOp(e.Op, OpWatch), TagList, t.kind
	t.r.hub.Publish(e)
}

func cmpOp(op, def Op) Op {
	if op == "" {
		return def
	}
	return op
}

func (t tappedResource) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if err := t.r.valve.Pass(ctx); err != nil {
		return nil, err
	}
	obj, err := t.Resource.List(ctx, opts)
	if err != nil {
		t.say(Event{Op: OpList, Verb: "failed", Err: err.Error(),
			Text: fmt.Sprintf("%s: LIST (resourceVersion=%q) failed: %s", plural(t.kind), opts.ResourceVersion, errorSummary(err))})
		return nil, err
	}
	items, _ := meta.ExtractList(obj)
	rv := ""
	if lm, err := meta.ListAccessor(obj); err == nil {
		rv = lm.GetResourceVersion()
	}
	keys := make([]string, 0, len(items))
	for _, item := range items {
		key := ObjectKey(item)
		keys = append(keys, key)
		t.r.kinds.saw(t.kind, key)
	}
	t.r.kinds.listed(t.kind, keys, rv)
	t.say(Event{Op: OpList, Arrow: ArrowList, RV: rv, Count: len(items),
		Text: fmt.Sprintf("%s: LIST (resourceVersion=%q) → %d object(s) at rv %s", plural(t.kind), opts.ResourceVersion, len(items), rv)})
	for i, item := range items {
		if i == maxListedKeys {
			break
		}
		t.say(Event{Op: OpList, Arrow: ArrowList, Key: keys[i], RV: ObjectRV(item),
			Text: fmt.Sprintf("%s %s: listed, rv %s", t.kind, keys[i], ObjectRV(item))})
	}
	return obj, nil
}

func (t tappedResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := t.r.valve.Pass(ctx); err != nil {
		return nil, err
	}
	w, err := t.Resource.Watch(ctx, opts)
	if err != nil {
		t.say(Event{Verb: "refused", RV: opts.ResourceVersion, Err: err.Error(),
			Text: fmt.Sprintf("%s: WATCH from rv %s refused: %s", plural(t.kind), opts.ResourceVersion, errorSummary(err))})
		return nil, err
	}
	t.say(Event{Verb: "open", RV: opts.ResourceVersion,
		Text: fmt.Sprintf("%s: WATCH from rv %s (the server sends every change after it)", plural(t.kind), opts.ResourceVersion)})
	tw := &tappedWatch{t: t, inner: w, out: make(chan watch.Event), stopped: make(chan struct{}), wake: make(chan struct{}, 1)}
	go tw.read()
	go tw.deliver()
	return tw, nil
}

// tappedWatch forwards one watch's events through the valve, in order. One
// goroutine reads the server's events as they come (so that a paused valve
// never makes the server cut the watch off as too slow), another delivers
// them; both end after Stop or when the server ends the watch.
type tappedWatch struct {
	t     tappedResource
	inner watch.Interface
	out   chan watch.Event

	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop

	mu     sync.Mutex // guards held and ended
	held   []watch.Event
	ended  bool
	wake   chan struct{} // capacity 1: held or ended changed
	lastRV string        // only deliver touches it
}

func (w *tappedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *tappedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

func (w *tappedWatch) read() {
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

func (w *tappedWatch) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *tappedWatch) deliver() {
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
				select {
				case <-w.stopped:
				default:
					w.t.say(Event{Verb: "ended", RV: w.lastRV,
						Text: fmt.Sprintf("%s: the watch ended (connection closed by the server)", plural(w.t.kind))})
				}
				return
			}
			select {
			case <-w.wake:
				continue
			case <-w.stopped:
				return
			}
		}
		if err := w.t.r.valve.Pass(ctx); err != nil {
			return
		}
		w.announce(ev)
		select {
		case w.out <- ev:
		case <-w.stopped:
			return
		}
	}
}

// announce publishes one watch event as it reaches the Reflector.
func (w *tappedWatch) announce(ev watch.Event) {
	switch ev.Type {
	case watch.Error:
		w.t.say(Event{Op: OpWatchEvent, Verb: string(ev.Type), Err: errorSummary(apierrors.FromObject(ev.Object)),
			Text: fmt.Sprintf("%s: watch ERROR event: %s", plural(w.t.kind), errorSummary(apierrors.FromObject(ev.Object)))})
	case watch.Bookmark:
		w.lastRV = ObjectRV(ev.Object)
	default:
		key, rv := ObjectKey(ev.Object), ObjectRV(ev.Object)
		w.lastRV = rv
		w.t.r.kinds.saw(w.t.kind, key)
		w.t.say(Event{Op: OpWatchEvent, Arrow: ArrowList, Key: key, RV: rv, Verb: string(ev.Type),
			Text: fmt.Sprintf("%s: watch event %s %s rv %s", plural(w.t.kind), ev.Type, key, rv)})
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
