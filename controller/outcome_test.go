package controller_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
)

// channelController starts a controller fed by a Channel source with
// EnqueueRequestForObject, and returns it with the channel to trigger it.
func channelController(t *testing.T, r controller.Reconciler, opts controller.Options) (*controller.Controller, chan<- controller.GenericEvent) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = ctrltest.Quiet
	}
	c, err := controller.New("test", r, opts)
	require.NoError(t, err)
	ch := make(chan controller.GenericEvent)
	require.NoError(t, c.Watch(controller.Channel(ch, controller.EnqueueRequestForObject{})))
	ctrltest.Start(t, c)
	return c, ch
}

// trigger sends a generic event for ns/a and waits until everything it
// caused, up to now, has happened.
func trigger(ch chan<- controller.GenericEvent) {
	ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", "a")}
	synctest.Wait()
}

var errBoom = errors.New("boom")

// TestErrorRequeuesWithExponentialBackoff: each error puts the Request back
// with AddRateLimited, so the retries come 5ms, 10ms, 20ms apart
// (DefaultControllerRateLimiter); the success that ends the series calls
// Forget, so the Request's failure count is back to zero.
// Diagram: step 8. client-go: controller-runtime reconcileHandler (err != nil).
func TestErrorRequeuesWithExponentialBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := ctrltest.NewRecorder(ctrltest.Outcome{Err: errBoom}, ctrltest.Outcome{Err: errBoom}, ctrltest.Outcome{Err: errBoom})
		rec.Narrate(t)
		c, ch := channelController(t, rec, controller.Options{})

		trigger(ch)
		time.Sleep(time.Hour)
		synctest.Wait()

		assert.Equal(t, []string{"0s", "5ms", "15ms", "35ms"}, rec.Times())
		t.Logf("Counts: %+v", c.Counts())
		assert.Equal(t, controller.ReconcileCounts{Errors: 3, Success: 1}, c.Counts())
		assert.Zero(t, c.Queue().NumRequeues(ctrltest.Req("ns", "a")), "success called Forget")
	})
}

// TestErrorWinsOverRequeueAfter: a Reconcile that returns an error and a
// RequeueAfter is retried with the error's backoff (5ms), not after the
// hour it asked for, and the controller logs that the Result was ignored.
// Diagram: step 8. client-go: controller-runtime reconcileHandler ("Warning: Reconciler returned both a non-zero result and a non-nil error").
func TestErrorWinsOverRequeueAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs ctrltest.LogBuffer
		rec := ctrltest.NewRecorder(ctrltest.Outcome{Result: controller.Result{RequeueAfter: time.Hour}, Err: errBoom})
		rec.Narrate(t)
		_, ch := channelController(t, rec, controller.Options{Logger: logs.Logger()})

		trigger(ch)
		time.Sleep(3 * time.Hour)
		synctest.Wait()

		assert.Equal(t, []string{"0s", "5ms"}, rec.Times())
		assert.Contains(t, logs.String(), "the Result is ignored")
	})
}

// TestTerminalErrorIsNotRequeued: a TerminalError, even wrapped, is logged
// and counted but never retried, and leaves no failure count behind; the
// next event for the object reconciles it again.
// Diagram: step 8. client-go: controller-runtime reconcile.TerminalError.
func TestTerminalErrorIsNotRequeued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs ctrltest.LogBuffer
		wrapped := fmt.Errorf("validating spec: %w", controller.TerminalError(errBoom))
		rec := ctrltest.NewRecorder(ctrltest.Outcome{Err: errBoom}, ctrltest.Outcome{Err: wrapped})
		rec.Narrate(t)
		c, ch := channelController(t, rec, controller.Options{Logger: logs.Logger()})

		trigger(ch)
		time.Sleep(time.Hour)
		synctest.Wait()

		assert.Equal(t, []string{"0s", "5ms"}, rec.Times(), "no retry after the terminal error")
		t.Logf("Counts: %+v", c.Counts())
		assert.Equal(t, controller.ReconcileCounts{Errors: 1, TerminalErrors: 1}, c.Counts())
		assert.Zero(t, c.Queue().NumRequeues(ctrltest.Req("ns", "a")))
		assert.Contains(t, logs.String(), "terminal error: boom")

		trigger(ch)

		assert.Len(t, rec.Times(), 3, "a new event brings it back")
	})
}

// TestRequeueAfterResetsBackoffThenWaits: after two errors, a RequeueAfter of
// one minute calls Forget and then AddAfter: the next call comes exactly a
// minute later, and the error after it waits the base 5ms again, not the
// 20ms the third failure in a row would have cost.
// Diagram: step 8. client-go: controller-runtime reconcileHandler (RequeueAfter > 0: Forget, AddAfter).
func TestRequeueAfterResetsBackoffThenWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := ctrltest.NewRecorder(
			ctrltest.Outcome{Err: errBoom},
			ctrltest.Outcome{Err: errBoom},
			ctrltest.Outcome{Result: controller.Result{RequeueAfter: time.Minute}},
			ctrltest.Outcome{Err: errBoom},
		)
		rec.Narrate(t)
		c, ch := channelController(t, rec, controller.Options{})

		trigger(ch)
		time.Sleep(time.Hour)
		synctest.Wait()

		assert.Equal(t, []string{"0s", "5ms", "15ms", "1m0.015s", "1m0.02s"}, rec.Times())
		t.Logf("Counts: %+v", c.Counts())
		assert.Equal(t, controller.ReconcileCounts{Errors: 3, RequeueAfter: 1, Success: 1}, c.Counts())
	})
}

// TestSuccessForgetsFailures: a success calls Forget, so a failure on a
// later event starts from the base delay again (5ms), and a success with no
// error and a zero Result is not requeued.
// Diagram: step 8. client-go: controller-runtime reconcileHandler (success: Forget).
func TestSuccessForgetsFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := ctrltest.NewRecorder(ctrltest.Outcome{Err: errBoom}, ctrltest.Outcome{Err: errBoom}, ctrltest.Outcome{}, ctrltest.Outcome{Err: errBoom})
		rec.Narrate(t)
		c, ch := channelController(t, rec, controller.Options{})

		trigger(ch)
		time.Sleep(time.Hour)
		trigger(ch)
		time.Sleep(time.Hour)
		synctest.Wait()

		assert.Equal(t, []string{"0s", "5ms", "15ms", "1h0m0s", "1h0m0.005s"}, rec.Times(),
			"the failure after a success is retried after the base 5ms: the success called Forget")
		t.Logf("Counts: %+v", c.Counts())
		assert.Equal(t, controller.ReconcileCounts{Errors: 3, Success: 2}, c.Counts())
	})
}

// TestPanicInReconcileBecomesRetriedError: with RecoverPanic left at its
// default, a panicking Reconcile is an error (retried after 5ms), counted as
// a panic, and the worker survives.
// Diagram: step 8. client-go: controller-runtime Controller.Reconcile (RecoverPanic).
func TestPanicInReconcileBecomesRetriedError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs ctrltest.LogBuffer
		rec := ctrltest.NewRecorder(ctrltest.Outcome{Panic: "nil map"})
		rec.Narrate(t)
		c, ch := channelController(t, rec, controller.Options{Logger: logs.Logger()})

		trigger(ch)
		time.Sleep(time.Hour)
		synctest.Wait()

		assert.Equal(t, []string{"0s", "5ms"}, rec.Times())
		t.Logf("Counts: %+v", c.Counts())
		assert.Equal(t, controller.ReconcileCounts{Errors: 1, Panics: 1, Success: 1}, c.Counts())
		assert.Contains(t, logs.String(), "Reconcile panicked")
		assert.Contains(t, logs.String(), "panic in Reconcile(ns/a): nil map [recovered]")
	})
}

// TestPanicRecoveryCanBeTurnedOff: RecoverPanic false lets the panic through.
// Diagram: step 8. client-go: controller-runtime Options.RecoverPanic.
func TestPanicRecoveryCanBeTurnedOff(t *testing.T) {
	off := false
	c, err := controller.New("test", ctrltest.NewRecorder(ctrltest.Outcome{Panic: "nil map"}), controller.Options{RecoverPanic: &off, Logger: ctrltest.Quiet})
	require.NoError(t, err)

	assert.PanicsWithValue(t, "nil map", func() { _, _ = c.ReconcileOnce(t.Context(), ctrltest.Req("ns", "a")) })
}

// TestTerminalErrorIsDetectedThroughWrapping: errors.Is(err,
// TerminalError(nil)) finds a terminal error anywhere in a chain, and the
// wrapped cause stays reachable.
// Diagram: step 8. client-go: controller-runtime reconcile.TerminalError.
func TestTerminalErrorIsDetectedThroughWrapping(t *testing.T) {
	wrapped := fmt.Errorf("syncing ns/a: %w", controller.TerminalError(errBoom))
	t.Logf("wrapped: %q; errors.Is(wrapped, TerminalError(nil)) = %v; errors.Is(wrapped, boom) = %v", wrapped, errors.Is(wrapped, controller.TerminalError(nil)), errors.Is(wrapped, errBoom))

	assert.ErrorIs(t, wrapped, controller.TerminalError(nil))
	assert.ErrorIs(t, wrapped, errBoom)
	assert.NotErrorIs(t, errBoom, controller.TerminalError(nil))
	assert.Equal(t, "syncing ns/a: terminal error: boom", wrapped.Error())
	assert.Equal(t, "terminal error", controller.TerminalError(nil).Error())
}
