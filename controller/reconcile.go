package controller

import (
	"context"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Request names the object to reconcile: its namespace and name, and nothing
// else. It carries no event type and no object body, on purpose: a Reconciler
// reads the current state of the object from the cache (diagram step 9) and
// makes the world match it, whatever sequence of events led here. Request is
// the key of the controller's workqueue (steps 7 and 8), so events for one
// object that arrive while it waits collapse into one Request.
//
// client-go: controller-runtime pkg/reconcile.Request.
type Request struct {
	types.NamespacedName
}

// String returns the Request's key, as the informer's cache files the object:
// "namespace/name", or "name" for a cluster-scoped object.
func (r Request) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Result tells the controller what to do with a Request after a Reconcile that
// returned no error. The zero Result means "done": the Request is forgotten
// until the next event for its object.
//
// There is no Requeue field. controller-runtime deprecated its Result.Requeue
// because "requeue with backoff, but without an error" was rarely what anyone
// meant; here, return an error to be retried with backoff, or set
// RequeueAfter to be called again after a fixed time.
//
// client-go: controller-runtime pkg/reconcile.Result.
type Result struct {
	// RequeueAfter, when positive, asks for the Request to be reconciled
	// again after this long, even if no event arrives (to poll something
	// outside the cluster, say). It resets the Request's backoff. It is
	// ignored when Reconcile also returns an error: the error's backoff wins.
	// An event for the object can still trigger an earlier Reconcile.
	RequeueAfter time.Duration
}

// IsZero reports whether r is the zero Result.
func (r Result) IsZero() bool { return r == Result{} }

// Reconciler makes the world match the desired state of one object. It is
// called with a Request naming the object, never with the object itself: it
// reads the object from the cache (step 9) and acts on what is there now.
// It must be idempotent: the controller may call it any number of times for
// the same object, including when nothing changed.
//
// The returned values decide what happens next (see [Controller]): an error
// retries with backoff, a [TerminalError] never retries, Result.RequeueAfter
// calls again after a delay, and the zero Result with no error ends the
// matter until the next event.
//
// client-go: controller-runtime pkg/reconcile.Reconciler.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a plain function to a [Reconciler].
//
// client-go: controller-runtime pkg/reconcile.Func.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// TerminalError wraps err to say that retrying will not help: the controller
// logs it and counts it but does not requeue the Request. Use it for input
// that is wrong and will stay wrong until someone edits the object (an invalid
// spec); the edit's event triggers the next Reconcile.
//
// errors.Is(err, TerminalError(nil)) reports whether err is, or wraps,
// a terminal error; errors.Unwrap and errors.Is/As see through it to err.
//
// client-go: controller-runtime pkg/reconcile.TerminalError.
func TerminalError(err error) error {
	return &terminalError{err: err}
}

type terminalError struct {
	err error
}

func (te *terminalError) Error() string {
	if te.err == nil {
		return "terminal error"
	}
	return "terminal error: " + te.err.Error()
}

func (te *terminalError) Unwrap() error { return te.err }

// Is makes every terminal error match every other, so that
// errors.Is(err, TerminalError(nil)) detects one anywhere in err's chain.
func (te *terminalError) Is(target error) bool {
	_, ok := target.(*terminalError)
	return ok
}

type loggerKey struct{}

// LoggerFrom returns the logger a [Controller] put in ctx: inside Reconcile it
// carries the controller's name and the Request ("controller", "request"
// attributes), in an event handler the controller's name. Without one it
// returns slog.Default().
//
// client-go: controller-runtime pkg/log.FromContext.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// withLogger returns ctx carrying logger for LoggerFrom.
func withLogger(ctx context.Context, logger *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, logger)
}
