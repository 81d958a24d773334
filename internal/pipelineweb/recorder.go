package pipelineweb

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/internal/pipelinetrace"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// Recorder turns what the running sample controller reports into Events on
// a [Hub]. It is a renderer of the same events as the text demo, so that
// the page and the terminal tell one story:
//
//   - [Recorder.Observe] is the samplecontroller Observer: steps 6 to 9, the
//     controller's API writes, its Reconcile results and its backoff;
//   - [Recorder.Trace] is a sink of package internal/pipelinetrace: step 1
//     (the ListerWatchers' calls and watch events), steps 2 to 6 (the
//     informers' debug trace) and the Reflectors' state changes, typed;
//   - [Recorder.Valved] puts the API handle the informers list and watch
//     through behind the [Valve]; [Recorder.Resource] also taps it for the
//     page alone, and [Recorder.Handler] is a trace handler for the page
//     alone.
//
// A Recorder is safe for concurrent use. Its zero value is not usable; use
// [NewRecorder].
type Recorder struct {
	hub   *Hub
	model *Model
	valve Valve
	// stream is the Recorder's own, for Handler and Resource: the page
	// alone, with Trace its only sink.
	stream *pipelinetrace.Stream

	tmu sync.Mutex // guards tombstones
	// tombstones are the keys ("Kind key") a Replace queued a tombstone
	// for, until they are popped.
	tombstones map[string]bool

	wmu sync.Mutex // guards writes
	// writes counts, per controller, the successful writes of the
	// Reconcile in progress.
	writes map[string]int

	// slow is how long each handler call is held (the slow-handler fault),
	// in nanoseconds; stop ends any such wait.
	slow atomic.Int64
	stop chan struct{}
	once sync.Once
}

// NewRecorder returns a Recorder that publishes to hub, whose model it also
// consults (nil: none).
func NewRecorder(hub *Hub, model *Model) *Recorder {
	r := &Recorder{hub: hub, model: model, stop: make(chan struct{})}
	r.stream = pipelinetrace.NewStream(r.Trace)
	return r
}

// Valve returns the valve in front of the Reflectors.
func (r *Recorder) Valve() *Valve { return &r.valve }

// Publish publishes e on the hub.
func (r *Recorder) Publish(e Event) Event { return r.hub.Publish(e) }

// SetSlowHandler makes every handler call take d longer (0: none), so that
// notifications pile up in the handlers' buffers.
func (r *Recorder) SetSlowHandler(d time.Duration) { r.slow.Store(int64(max(d, 0))) }

// SlowHandler returns the delay SetSlowHandler set.
func (r *Recorder) SlowHandler() time.Duration { return time.Duration(r.slow.Load()) }

// Close ends any handler delay in progress; later ones do not wait.
func (r *Recorder) Close() { r.once.Do(func() { close(r.stop) }) }

// who names a controller as the text demo does.
func who(ctrl string) string {
	if ctrl == sc.FooControllerName {
		return "foo-controller"
	}
	return ctrl
}

// kindOf names a resource's kind: "foos" -> "Foo".
func kindOf(resource string) string {
	switch resource {
	case "foos":
		return "Foo"
	case "deployments":
		return "Deployment"
	}
	return resource
}

// requestKind is the kind of a controller's Requests.
func requestKind(ctrl string) string {
	if ctrl == sc.SimulatorControllerName {
		return "Deployment"
	}
	return "Foo"
}

// Observe is a samplecontroller.Observer. On a handler call it also waits
// out the slow-handler delay, after publishing.
func (r *Recorder) Observe(e sc.Event) {
	ev := Event{Controller: e.Controller}
	req := e.Request.String()
	switch e.Step {
	case sc.StepHandler:
		ev.Op, ev.Tag, ev.Kind, ev.Key, ev.Verb = OpHandler, TagHandler, kindOf(e.Resource), e.Key, e.Verb
		ev.Text = fmt.Sprintf("%s: %s %s %s", who(e.Controller), handlerCall(e.Verb), ev.Kind, e.Key)
		if e.Dropped {
			ev.Dropped = true
			why := "a status or metadata write"
			if e.Verb == "resync" {
				why = "nothing changed"
			}
			ev.Text += fmt.Sprintf(", dropped by %s (generation unchanged: %s)", e.Detail, why)
		}
	case sc.StepEnqueue:
		ev.Op, ev.Tag, ev.Arrow, ev.Kind, ev.Key = OpEnqueue, TagEnqueue, ArrowEnqueue, requestKind(e.Controller), req
		ev.Text = fmt.Sprintf("%s queue ← %s", who(e.Controller), req)
		if f := strings.Fields(e.Detail); len(f) == 4 && f[0] == "owner" && f[1] == "of" {
			ev.Text += fmt.Sprintf(" (the owner of %s %s)", kindOf(f[2]), f[3])
		} else if e.Detail != "" {
			ev.Text += " (" + e.Detail + ")"
		}
	case sc.StepGetKey:
		ev.Op, ev.Tag, ev.Arrow, ev.Kind, ev.Key = OpGetKey, TagGetKey, ArrowGetKey, requestKind(e.Controller), req
		ev.Text = fmt.Sprintf("%s worker: Get() → %s", who(e.Controller), req)
		r.countWrites(e.Controller, false)
	case sc.StepListerGet:
		ev.Op, ev.Tag, ev.Arrow, ev.Kind, ev.Key, ev.Verb = OpListerGet, TagListerGet, ArrowGet, kindOf(e.Resource), e.Key, e.Verb
		ev.Text = fmt.Sprintf("%s %s: %s", ev.Kind, e.Key, r.cacheAnswer(ev.Kind, e.Key, e.Verb))
	case sc.StepAPIWrite:
		ev.Op, ev.Tag, ev.Arrow, ev.Kind, ev.Key, ev.Verb = OpAPIWrite, TagWrite, ArrowWrite, kindOf(e.Resource), e.Key, e.Verb
		ev.Text = fmt.Sprintf("%s: %s %s %s", who(e.Controller), writeVerb(e.Verb), ev.Kind, e.Key)
		if e.Detail != "" {
			ev.Text += " (" + strings.ReplaceAll(e.Detail, "->", "→") + ")"
		}
		if e.Err != nil {
			ev.Err = e.Err.Error()
			ev.Text += " → " + errorSummary(e.Err)
		} else {
			r.countWrites(e.Controller, true)
		}
	case sc.StepReconcile:
		ev.Op, ev.Tag, ev.Kind, ev.Key = OpReconcile, TagReconcile, requestKind(e.Controller), req
		switch {
		case e.Err != nil && isTerminal(e.Err):
			ev.Verb, ev.Err = "terminal", e.Err.Error()
			ev.Text = "terminal error, not retried: " + ev.Err
		case e.Err != nil:
			ev.Verb, ev.Err = "error", e.Err.Error()
			ev.Text = "error: " + ev.Err
		case e.Result.RequeueAfter > 0:
			ev.Verb = "requeue"
			ev.Text = fmt.Sprintf("done, again in %s", e.Result.RequeueAfter)
		default:
			ev.Verb = "done"
			ev.Text = "done: nothing to write"
			if n := r.countWrites(e.Controller, false); n > 0 {
				ev.Text = fmt.Sprintf("done (%d write(s))", n)
			}
		}
		ev.Text = req + ": " + ev.Text
	case sc.StepBackoff:
		ev.Op, ev.Tag, ev.Arrow, ev.Kind, ev.Key = OpBackoff, TagEnqueue, ArrowRetry, requestKind(e.Controller), req
		ev.DelayMS, ev.Failures = durationMS(e.Delay), e.Failures
		ev.Text = fmt.Sprintf("%s queue ← %s again in %s (AddRateLimited: failure #%d in a row, the delay doubles each time)",
			who(e.Controller), req, e.Delay, e.Failures)
	default:
		return
	}
	r.hub.Publish(ev)
	if e.Step == sc.StepHandler {
		r.holdHandler()
	}
}

// holdHandler waits out the slow-handler delay, if any.
func (r *Recorder) holdHandler() {
	d := r.SlowHandler()
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.stop:
	}
}

// isTerminal reports whether a Reconcile error is a TerminalError.
func isTerminal(err error) bool { return errors.Is(err, controller.TerminalError(nil)) }

func handlerCall(verb string) string {
	switch verb {
	case "add":
		return "OnAdd"
	case "update":
		return "OnUpdate"
	case "resync":
		return "OnUpdate (a resync)"
	case "delete":
		return "OnDelete"
	case "delete (state unknown)":
		return "OnDelete (a DeletedFinalStateUnknown tombstone)"
	}
	return verb
}

// countWrites adds one write of ctrl's Reconcile in progress (add), or
// returns the count and starts again from zero.
func (r *Recorder) countWrites(ctrl string, add bool) int {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if r.writes == nil {
		r.writes = map[string]int{}
	}
	if add {
		r.writes[ctrl]++
		return r.writes[ctrl]
	}
	n := r.writes[ctrl]
	delete(r.writes, ctrl)
	return n
}

// cacheAnswer says what a step 9 Get found.
func (r *Recorder) cacheAnswer(kind, key, verb string) string {
	switch verb {
	case "found":
		if r.model != nil {
			if obj, ok := r.model.cached(kind, key); ok {
				return fmt.Sprintf("rv %s, generation %d (found in the cache)", obj.RV, obj.Generation)
			}
		}
		return "found in the cache"
	case "not found":
		return "not in the cache"
	}
	return verb
}

func writeVerb(verb string) string {
	if verb == "update status" {
		return "UPDATE /status"
	}
	return strings.ToUpper(verb)
}

func durationMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
