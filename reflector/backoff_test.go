package reflector_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informerlab/informerlab/reflector"
)

// failLists answers n Lists with a 500 and returns the delay before each of
// them after the first.
func failLists(t *testing.T, h *harness, rv string, limit int64, n int) []time.Duration {
	t.Helper()
	var delays []time.Duration
	for i := range n {
		before := time.Now()
		h.lw.expectList(t, rv, limit).fail(apierrors.NewInternalError(errors.New("down")))
		<-h.errs
		if i > 0 {
			delays = append(delays, time.Since(before))
		}
	}
	return delays
}

// Retries wait 800ms, doubling up to 30s. The sequence restarts from 800ms
// only once the Reflector has gone two minutes without needing a delay: a
// watch that fails after one healthy minute still waits 30s, one that fails
// after three minutes waits 800ms again.
// Diagram: step 1. client-go: wait.Backoff with DelayWithReset (800ms, x2, 30s cap, 2m reset)
func TestBackoffDoublesToCapThenResetsAfterTwoHealthyMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{IdleTimeout: -1})

		delays := failLists(t, h, "0", 500, 9)
		assert.Equal(t, []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
			6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}, delays)

		before := time.Now()
		h.lw.expectList(t, "0", 500).respondList(podList("10"))
		assert.Equal(t, 30*time.Second, time.Since(before))
		w := h.lw.expectWatch(t, "10").respondWatch()
		time.Sleep(time.Minute)
		w.Error(&apierrors.NewInternalError(errors.New("boom")).ErrStatus)
		before = time.Now()
		h.lw.expectList(t, "10", 0).respondList(podList("10"))
		assert.Equal(t, 30*time.Second, time.Since(before), "90s since the last delay: no reset yet")

		w = h.lw.expectWatch(t, "10").respondWatch()
		time.Sleep(3 * time.Minute)
		w.Error(&apierrors.NewInternalError(errors.New("boom")).ErrStatus)
		before = time.Now()
		h.lw.expectList(t, "10", 0).respondList(podList("10"))
		assert.Equal(t, 800*time.Millisecond, time.Since(before), "healthy for over two minutes: reset")
		h.lw.expectWatch(t, "10").respondWatch()
		h.settle(t)
	})
}

// With the default jitter of 1.0 every delay lies between its base and twice
// its base, so reflectors that failed together spread out.
// Diagram: step 1. client-go: wait.Jitter
func TestBackoffJitterStaysWithinOneExtraDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{}, withRand(rand.Float64))

		delays := failLists(t, h, "0", 500, 10)

		base := 800 * time.Millisecond
		jittered := 0
		for i, d := range delays {
			assert.GreaterOrEqual(t, d, base, "delay %d", i)
			assert.LessOrEqual(t, d, 2*base, "delay %d", i)
			if d != base {
				jittered++
			}
			base = min(2*base, 30*time.Second)
		}
		assert.Positive(t, jittered, "some delay got a random extra")
		h.settle(t)
	})
}

// A Backoff option is used as given: here a constant 1s (Factor below 1 is
// treated as 1, negative Jitter as none).
// Diagram: step 1. client-go: ReflectorOptions.Backoff
func TestBackoffOptionIsUsedAsGiven(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{Backoff: reflector.Backoff{Initial: time.Second, Factor: 0.5, Jitter: -1}},
			withRand(rand.Float64))

		delays := failLists(t, h, "0", 500, 4)

		assert.Equal(t, []time.Duration{time.Second, time.Second, time.Second}, delays)
		h.settle(t)
	})
}

// DefaultBackoff is client-go's reflector backoff.
// Diagram: step 1. client-go: NewReflectorWithOptions (backoff defaults)
func TestDefaultBackoffIsClientGos(t *testing.T) {
	assert.Equal(t, reflector.Backoff{Initial: 800 * time.Millisecond, Factor: 2, Jitter: 1, Cap: 30 * time.Second,
		ResetAfter: 2 * time.Minute}, reflector.DefaultBackoff())
}
