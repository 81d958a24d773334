package samplecontroller

import (
	"fmt"
	"strings"
	"time"

	"github.com/informerlab/informerlab/controller"
)

// Step says where in the diagram an [Event] happened. Its value is the tag
// a narrator prints: "[6 handler]", "[7 enqueue]", ...
//
// client-go: none (the numbered arrows of client-go's controller diagram).
type Step string

// The steps an Observer hears about, in the order one change crosses them.
const (
	// StepHandler: an informer notification reached a controller's
	// source (diagram step 6), and its predicates let it through or not.
	StepHandler Step = "6 handler"
	// StepEnqueue: an event handler put a Request on the queue (step 7).
	StepEnqueue Step = "7 enqueue"
	// StepGetKey: a worker took a Request off the queue (step 8) and
	// calls the Reconciler.
	StepGetKey Step = "8 get key"
	// StepListerGet: the Reconciler read an object from the informer's
	// cache (step 9), through the Manager's client: no request.
	StepListerGet Step = "9 lister get"
	// StepAPIWrite: the Reconciler wrote to the API server.
	StepAPIWrite Step = "api"
	// StepReconcile: a Reconcile returned.
	StepReconcile Step = "reconcile"
	// StepBackoff: a failed Request was handed to the rate limiter, which
	// chose how long it waits before its next try.
	StepBackoff Step = "backoff"
)

// The two controllers New wires, as they appear in Event.Controller.
const (
	FooControllerName       = "foo"
	SimulatorControllerName = "deployment-simulator"
)

// Event is one thing an [Observer] is told about. Which fields are set
// depends on Step; String renders any Event as one line.
//
// client-go: none (what sample-controller's klog lines and Events say, as
// data).
type Event struct {
	Step Step
	// Controller is FooControllerName or SimulatorControllerName.
	Controller string
	// Resource ("foos", "deployments") and Key ("namespace/name") name
	// the object of a StepHandler, StepListerGet or StepAPIWrite, and the
	// object whose event enqueued a StepEnqueue.
	Resource, Key string
	// Request is the Request of a StepEnqueue, StepGetKey, StepReconcile
	// or StepBackoff.
	Request controller.Request
	// Verb is, for StepHandler, "add", "update", "resync" (an update with
	// an unchanged resourceVersion), "delete" or "delete (state unknown)"
	// (found by a relist); for StepListerGet, "found" or "not found"; for
	// StepAPIWrite, "create", "patch", "update status" or "delete".
	Verb string
	// Detail says more: for StepHandler, which predicate dropped the event
	// ("" if it passed); for StepAPIWrite, what the write changes.
	Detail string
	// Dropped is set on a StepHandler event a predicate dropped.
	Dropped bool
	// Delay is how long a StepBackoff Request waits; Failures is how many
	// times in a row it has failed.
	Delay    time.Duration
	Failures int
	// Result and Err are a StepReconcile's outcome; Err is also set on a
	// StepAPIWrite that failed.
	Result controller.Result
	Err    error
}

// String renders e as the one line a narrator prints, for example
//
//	[6 handler] foo: update deployments demo/web
//	[7 enqueue] foo: demo/example (owner of deployments demo/web)
//	[9 lister get] foo: foos demo/example found
//	[api] foo: patch deployments demo/web: replicas 1 -> 3
//	[reconcile] foo: demo/example done
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s: ", e.Step, e.Controller)
	switch e.Step {
	case StepHandler:
		fmt.Fprintf(&b, "%s %s %s", e.Verb, e.Resource, e.Key)
		if e.Dropped {
			fmt.Fprintf(&b, ", dropped by %s", e.Detail)
		}
	case StepEnqueue:
		b.WriteString(e.Request.String())
		if e.Detail != "" {
			fmt.Fprintf(&b, " (%s)", e.Detail)
		}
	case StepGetKey:
		b.WriteString(e.Request.String())
	case StepListerGet:
		fmt.Fprintf(&b, "%s %s %s", e.Resource, e.Key, e.Verb)
	case StepAPIWrite:
		fmt.Fprintf(&b, "%s %s %s", e.Verb, e.Resource, e.Key)
		if e.Detail != "" {
			fmt.Fprintf(&b, ": %s", e.Detail)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, " failed: %v", e.Err)
		}
	case StepReconcile:
		b.WriteString(e.Request.String())
		switch {
		case e.Err != nil && isTerminal(e.Err):
			fmt.Fprintf(&b, " failed, not retried: %v", e.Err)
		case e.Err != nil:
			fmt.Fprintf(&b, " failed: %v", e.Err)
		case e.Result.RequeueAfter > 0:
			fmt.Fprintf(&b, " done, again in %s", e.Result.RequeueAfter)
		default:
			b.WriteString(" done")
		}
	case StepBackoff:
		fmt.Fprintf(&b, "%s retried in %s (failure %d in a row)", e.Request, e.Delay, e.Failures)
	default:
		fmt.Fprintf(&b, "%s %s %s %s", e.Resource, e.Key, e.Verb, e.Detail)
	}
	return b.String()
}

// Observer is told about every step a controller takes, for a narrator to
// print (the demo prints e.String()) or a test to count. It is called
// synchronously from the informers' handler goroutines and from the
// workers, possibly concurrently: it must be safe for concurrent use, quick,
// and must not call back into the controller. A nil Observer costs nothing:
// New then wires the controllers without any of the observing wrappers.
//
// client-go: none (workqueue.MetricsProvider and the informer's handler
// hooks are the nearest: they count, this narrates).
type Observer func(Event)
