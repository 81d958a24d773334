package reflector_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informerlab/informerlab/reflector"
)

// internalError is the ERROR event object of a watch the server ends with a 500.
var internalError = &apierrors.NewInternalError(errors.New("etcd leader changed")).ErrStatus

// Within MaxInternalErrorRetryDuration of the first 500 of a streak, a watch
// that ends with a 500 is re-opened at once from the last resourceVersion:
// no backoff, no relist. Once the streak is older than the window, the next
// 500 relists after the usual backoff.
// Diagram: step 1. client-go: Reflector.watch (MaxInternalErrorRetryDuration)
func TestInternalErrorRewatchesAtOnceWithinTheWindowThenRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{MaxInternalErrorRetryDuration: 30 * time.Second})
		w := h.sync(t, "10")
		h.takeTransitions()

		begin := time.Now()
		w.Error(internalError)
		w = h.lw.expectWatch(t, "10").respondWatch()
		atOnce := time.Since(begin)
		time.Sleep(20 * time.Second)
		w.Error(internalError)
		w = h.lw.expectWatch(t, "10").respondWatch()
		time.Sleep(15 * time.Second) // 35s after the first 500 of the streak
		w.Error(internalError)
		before := time.Now()
		h.lw.expectList(t, "10", 0).respondList(podList("10"))
		backoff := time.Since(before)
		h.lw.expectWatch(t, "10").respondWatch()
		waitBubble()

		assert.Zero(t, atOnce, "re-watched without waiting")
		assert.Equal(t, 800*time.Millisecond, backoff)
		assert.Equal(t, []string{
			"watching -> watching", "watching -> watching",
			"watching -> backing off to relist", "backing off to relist -> listing", "listing -> watching",
		}, h.takeTransitions())
		h.settle(t)
	})
}

// A 500 a minute or more after the previous one starts a new streak, so a
// server that fails now and then is always re-watched at once.
// Diagram: step 1. client-go: retryWithDeadlineImpl.After (minResetPeriod)
func TestInternalErrorsAMinuteApartEachStartANewWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, reflector.Options{MaxInternalErrorRetryDuration: 10 * time.Second})
		w := h.sync(t, "10")
		h.takeTransitions()

		for range 3 {
			w.Error(internalError)
			w = h.lw.expectWatch(t, "10").respondWatch()
			time.Sleep(time.Minute)
		}
		waitBubble()

		assert.Equal(t, []string{"watching -> watching", "watching -> watching", "watching -> watching"},
			h.takeTransitions())
		h.settle(t)
	})
}

// The default, zero, keeps client-go's default: a 500 relists like any other
// error; and other errors never open a retry window.
// Diagram: step 1. client-go: ReflectorOptions (MaxInternalErrorRetryDuration defaults to 0)
func TestInternalErrorRelistsByDefaultAndOtherErrorsNeverRewatchAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		off := start(t, reflector.Options{})
		w := off.sync(t, "10")
		w.Error(internalError)
		off.lw.expectList(t, "10", 0).respondList(podList("10"))
		off.lw.expectWatch(t, "10").respondWatch()
		off.settle(t)

		on := start(t, reflector.Options{MaxInternalErrorRetryDuration: time.Hour})
		w = on.sync(t, "20")
		w.Error(&apierrors.NewServiceUnavailable("later").ErrStatus)
		on.lw.expectList(t, "20", 0).respondList(podList("20"))
		on.lw.expectWatch(t, "20").respondWatch()
		on.settle(t)
	})
}
