package grade

import (
	"runtime/debug"
	"testing"
)

// Go runs fn on a new goroutine and returns a channel closed when fn
// returns. Suites call a learner's code through it whenever they need more
// than one goroutine: a panic there fails t with its stack instead of
// crashing the whole grader. Wait for the channel before the test ends.
func Go(t testing.TB, fn func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("panic in a goroutine: %v\n%s", r, debug.Stack())
			}
		}()
		fn()
	}()
	return done
}
