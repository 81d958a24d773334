package demoengine

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/informer"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// observer turns the sample controller's Observer events (steps 6 to 9,
// its API writes, Reconcile results and backoff) into narrated lines.
//
// The Observer is called from several goroutines at once: one per handler
// registration (step 6 and 7) and one worker per controller (the rest). In
// the deterministic transcript each of them is a lane of its stage, so that
// their lines never interleave (see narrator.flush).
type observer struct {
	n      *narrator
	writes *writeLog
	// kinds tells what delivered an unchanged update: a relist or a resync.
	kinds *kindIndex
	// foos and deployments read the caches, to show what a step 9 Get
	// returned; set before the controller runs.
	foos        informer.Lister[*sc.Foo]
	deployments informer.Lister[*sc.Deployment]

	mu sync.Mutex // guards current and failures
	// current is, per controller, what its worker did with the Request it
	// took last.
	current map[string]*reconcileNotes
	// failures is how many times in a row each Request failed.
	failures map[controller.Request]int
}

// reconcileNotes is what one Reconcile did, for the line that ends it.
type reconcileNotes struct {
	writes           int  // successful writes
	gone             bool // the Request's Foo was not in the cache
	finalizerRemoved bool
	alreadyGone      bool // a write found the Foo already deleted
}

func newObserver(n *narrator, writes *writeLog, kinds *kindIndex) *observer {
	return &observer{n: n, writes: writes, kinds: kinds, current: map[string]*reconcileNotes{}, failures: map[controller.Request]int{}}
}

// notesLocked returns the notes of ctrl's current Reconcile; o.mu must be held.
func (o *observer) notesLocked(ctrl string) *reconcileNotes {
	if o.current[ctrl] == nil {
		o.current[ctrl] = &reconcileNotes{}
	}
	return o.current[ctrl]
}

// Lanes of the handler stage: one goroutine per handler registration.
const (
	laneFooFoos = iota
	laneFooDeployments
	laneSimulator
)

func (o *observer) observe(e sc.Event) {
	sim := e.Controller == sc.SimulatorControllerName
	if sim && !o.n.verbose && e.Step != sc.StepAPIWrite {
		return // the simulator plays kube-controller-manager: only its writes matter
	}
	who := "foo-controller"
	stage := stageWorker
	handlerLane := laneFooFoos
	if sim {
		who, stage, handlerLane = "deployment-simulator", stageSimulator, laneSimulator
	}
	switch e.Step {
	case sc.StepHandler:
		if !sim && e.Resource == "deployments" {
			handlerLane = laneFooDeployments
		}
		o.n.line(stageHandler, handlerLane, tagHandler, "%s", o.handlerLine(who, e))
	case sc.StepEnqueue:
		cause := ""
		if f := strings.Fields(e.Detail); len(f) == 4 && f[0] == "owner" && f[1] == "of" {
			// EnqueueRequestForOwner: a Deployment's event enqueues its Foo.
			cause = fmt.Sprintf(" (the owner of %s %s)", kindOf(f[2]), f[3])
			if !sim {
				handlerLane = laneFooDeployments
			}
		} else if e.Detail != "" {
			cause = " (" + e.Detail + ")"
		}
		o.n.line(stageHandler, handlerLane, tagEnqueue, "%s queue ← %s%s", who, e.Request, cause)
	case sc.StepGetKey:
		o.mu.Lock()
		o.current[e.Controller] = &reconcileNotes{}
		o.mu.Unlock()
		o.n.line(stage, 0, tagGetKey, "%s worker: Get() → %s", who, e.Request)
	case sc.StepListerGet:
		line, gone := o.cacheLine(e)
		if e.Resource == "foos" && (e.Verb == "not found" || gone) {
			o.mu.Lock()
			o.notesLocked(e.Controller).gone = true
			o.mu.Unlock()
		}
		o.n.line(stage, 0, tagListerGet, "%s", line)
	case sc.StepAPIWrite:
		o.n.line(stage, 0, tagWrite, "%s", o.writeLine(who, e))
		o.writes.done(e.Resource, e.Verb, e.Key) // its watch events may print now
	case sc.StepReconcile:
		o.reconciled(who, stage, e)
	case sc.StepBackoff:
		o.mu.Lock()
		o.failures[e.Request] = e.Failures
		o.mu.Unlock()
		o.n.line(stage, 0, tagEnqueue, "%s queue ← %s again in %s (AddRateLimited: failure #%d in a row, the delay doubles each time)",
			who, e.Request, e.Delay, e.Failures)
	default:
		o.n.line(stage, 0, tagReconcile, "%s", e.String())
	}
}

// handlerLine describes a notification reaching the controller's source,
// and what its predicate made of it.
func (o *observer) handlerLine(who string, e sc.Event) string {
	var ev string
	switch e.Verb {
	case "add":
		ev = "OnAdd"
	case "update":
		ev = "OnUpdate"
	case "resync":
		// The resourceVersion did not change: the informer's resync, or a
		// relist that found the object as it was.
		ev = "OnUpdate (same resourceVersion: " + o.kinds.unchangedBy(kindOf(e.Resource), e.Key) + ")"
	case "delete":
		ev = "OnDelete"
	case "delete (state unknown)":
		ev = "OnDelete (a DeletedFinalStateUnknown tombstone: the relist found it gone)"
	default:
		ev = e.Verb
	}
	// The event's own words come first: "OnUpdate Foo default/web".
	head, note, _ := strings.Cut(ev, " ")
	line := fmt.Sprintf("%s: %s %s %s", who, head, kindOf(e.Resource), e.Key)
	if note != "" {
		line += " " + note
	}
	if e.Dropped {
		why := "a status or metadata write"
		if e.Verb == "resync" {
			why = "nothing changed"
		}
		line += fmt.Sprintf(", dropped by %s (generation unchanged: %s)", e.Detail, why)
	}
	return line
}

// cacheLine describes what a step 9 Get found in the cache, and whether
// that is a Foo the controller's own write has deleted.
func (o *observer) cacheLine(e sc.Event) (string, bool) {
	what := kindOf(e.Resource) + " " + e.Key
	if e.Verb == "not found" {
		return what + ": not in the cache", false
	}
	if e.Verb != "found" {
		return what + ": " + e.Verb, false
	}
	ns, name, _ := strings.Cut(e.Key, "/")
	switch e.Resource {
	case "foos":
		if foo, err := o.foos.Namespace(ns).Get(name); err == nil {
			line := fmt.Sprintf("%s: rv %s, generation %d, spec.replicas=%s%s",
				what, foo.ResourceVersion, foo.Generation, replicas(foo.Spec.Replicas), deleting(foo.DeletionTimestamp != nil))
			switch own, deleted, behind := o.writes.newerOwn(e.Key, foo.ResourceVersion); {
			case behind && deleted:
				line += " — the cache is behind the controller's own write, which deleted the Foo: this controller remembers that and stops" +
					" (one without that memory would run the cleanup again, and its finalizer patch would get 404 NotFound)"
				return line, true
			case behind:
				line += fmt.Sprintf(" — the cache is behind the controller's own write (rv %s): this controller remembers its writes and works from that copy"+
					" (one without that memory would act on rv %s, and any write of it would get 409 Conflict and be retried)", own, foo.ResourceVersion)
			}
			return line, false
		}
	case "deployments":
		if d, err := o.deployments.Namespace(ns).Get(name); err == nil {
			return fmt.Sprintf("%s: rv %s, spec.replicas=%s, status.availableReplicas=%d%s",
				what, d.ResourceVersion, replicas(d.Spec.Replicas), d.Status.AvailableReplicas, deleting(d.DeletionTimestamp != nil)), false
		}
	}
	return what + ": found", false
}

func replicas(r *int32) string {
	if r == nil {
		return "unset"
	}
	return fmt.Sprint(*r)
}

func deleting(yes bool) string {
	if yes {
		return ", deletionTimestamp set"
	}
	return ""
}

// writeLine describes one API write and what the server answered.
func (o *observer) writeLine(who string, e sc.Event) string {
	verb := strings.ToUpper(e.Verb)
	if e.Verb == "update status" {
		verb = "UPDATE /status"
	}
	line := fmt.Sprintf("%s: %s %s %s", who, verb, kindOf(e.Resource), e.Key)
	if e.Detail != "" {
		line += " (" + strings.ReplaceAll(e.Detail, "->", "→") + ")"
	}
	answer := o.writes.take(e.Resource, e.Verb, e.Key)
	switch {
	case e.Err != nil:
		line += " → " + errorSummary(e.Err)
	case answer.text != "":
		line += " → " + answer.text
	}
	if e.Err == nil {
		o.mu.Lock()
		notes := o.notesLocked(e.Controller)
		switch {
		case answer.gone:
			notes.alreadyGone = true
		case e.Resource == "foos" && strings.HasPrefix(e.Detail, "remove finalizer"):
			notes.writes++
			notes.finalizerRemoved = true
		default:
			notes.writes++
		}
		o.mu.Unlock()
	}
	return line
}

// reconciled narrates how a Reconcile ended, and a backoff reset.
func (o *observer) reconciled(who string, stage int, e sc.Event) {
	o.mu.Lock()
	notes := *o.notesLocked(e.Controller)
	failed := o.failures[e.Request]
	if e.Err == nil {
		delete(o.failures, e.Request)
	}
	o.mu.Unlock()
	req := e.Request.String()
	switch {
	case e.Err != nil && errors.Is(e.Err, controller.TerminalError(nil)):
		o.n.line(stage, 0, tagReconcile, "%s: terminal error, not retried: %v", req, e.Err)
		return
	case e.Err != nil:
		o.n.line(stage, 0, tagReconcile, "%s: error: %v", req, e.Err)
		return
	case e.Result.RequeueAfter > 0:
		o.n.line(stage, 0, tagReconcile, "%s: done, again in %s", req, e.Result.RequeueAfter)
	case notes.finalizerRemoved:
		o.n.line(stage, 0, tagReconcile, "%s: done: cleanup finished and finalizer removed, so the API server can now delete the Foo", req)
	case notes.writes > 0:
		o.n.line(stage, 0, tagReconcile, "%s: done (%d write(s))", req, notes.writes)
	case notes.alreadyGone:
		o.n.line(stage, 0, tagReconcile, "%s: done: the Foo was already deleted, nothing left to do", req)
	case notes.gone:
		o.n.line(stage, 0, tagReconcile, "%s: done: the Foo is gone, nothing to do", req)
	default:
		o.n.line(stage, 0, tagReconcile, "%s: done: nothing to write", req)
	}
	if failed > 0 {
		o.n.line(stage, 0, tagReconcile, "%s: %s succeeded after %d failure(s): Forget resets its backoff", who, req, failed)
	}
}

// kindOf names a resource's kind: "foos" → "Foo".
func kindOf(resource string) string {
	switch resource {
	case "foos":
		return "Foo"
	case "deployments":
		return "Deployment"
	}
	return resource
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

// errorText renders an error with what the server said about it:
// "410 Expired: too old resource version: 20 (22)"; any other error as
// itself.
func errorText(err error) string {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return err.Error()
	}
	st := se.Status()
	if st.Message == "" {
		return errorSummary(err)
	}
	return errorSummary(err) + ": " + st.Message
}
