package grade

import (
	"runtime/debug"
	"sync"
	"testing"
	"testing/synctest"
)

// startedNothing records, by test name, the tests whose goroutines hit a
// NotImplementedError: the grader counts them as not started.
var startedNothing sync.Map

// Go runs fn on a new goroutine and returns a channel closed when fn
// returns. Suites call a learner's code through it whenever they need more
// than one goroutine: a panic there fails t with its stack instead of
// crashing the whole grader, and a NotImplementedError marks the
// behaviour as not started. Wait for the channel before the test ends.
func Go(t testing.TB, fn func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if err, ok := r.(error); ok && IsNotImplemented(err) {
				startedNothing.Store(t.Name(), err)
				t.Errorf("not started: %v (on another goroutine)", err)
				return
			}
			t.Errorf("panic in a goroutine: %v\n%s", r, debug.Stack())
		}()
		fn()
	}()
	return done
}

// Bubble runs fn in a testing/synctest bubble, as synctest.Test does, and
// carries a panic inside the bubble out to the caller's goroutine. Suites
// use it instead of synctest.Test: synctest runs fn on a goroutine of its
// own, where the grader could not see that a skeleton panicked with
// NotImplemented.
func Bubble(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	var panicked any
	synctest.Test(t, func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				panicked = r
			}
		}()
		fn(t)
	})
	if panicked != nil {
		panic(panicked)
	}
}
