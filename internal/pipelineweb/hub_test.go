package pipelineweb_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// publishKeys publishes perKey events for each key, one goroutine per key
// (as one object's events come from one pipeline goroutine at a time), each
// event d after the last, and returns when all are published.
func publishKeys(hub *pipelineweb.Hub, keys []string, perKey int, d time.Duration) {
	var wg sync.WaitGroup
	for _, key := range keys {
		wg.Go(func() {
			for i := range perKey {
				hub.Publish(pipelineweb.Event{Op: pipelineweb.OpQueued, Key: key, Text: fmt.Sprint(i)})
				if d > 0 {
					time.Sleep(d)
				}
			}
		})
	}
	wg.Wait()
}

// checkPerKeyOrder asserts that Seq increases and each key's events are in
// publishing order: consecutive, or with gaps when some were dropped.
func checkPerKeyOrder(t *testing.T, events []pipelineweb.Event, gaps bool) {
	t.Helper()
	next := map[string]int{}
	var last uint64
	for _, e := range events {
		assert.Greater(t, e.Seq, last, "Seq increases")
		last = e.Seq
		var i int
		_, err := fmt.Sscan(e.Text, &i)
		require.NoError(t, err)
		if gaps {
			assert.GreaterOrEqual(t, i, next[e.Key], "key %s: event %d after %d", e.Key, i, next[e.Key]-1)
		} else {
			assert.Equal(t, next[e.Key], i, "key %s", e.Key)
		}
		next[e.Key] = i + 1
	}
}

// TestSubscriptionGetsEveryEventInOrderWhenTheReaderKeepsUp publishes from
// several goroutines while one reader drains its subscription: nothing is
// dropped, Seq increases and each key's events keep their order.
// Diagram: none (the page's event feed). client-go: none.
func TestSubscriptionGetsEveryEventInOrderWhenTheReaderKeepsUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hub := pipelineweb.NewHub(nil, 10)
		_, sub := hub.Subscribe(16)
		defer sub.Close()
		var got []pipelineweb.Event
		var dropped int
		done := make(chan struct{})
		go func() {
			defer close(done)
			for len(got) < 4*250 {
				<-sub.Ready()
				events, d := sub.Next()
				got = append(got, events...)
				dropped += d
			}
		}()

		publishKeys(hub, []string{"a", "b", "c", "d"}, 250, time.Millisecond)
		<-done

		assert.Len(t, got, 1000)
		assert.Zero(t, dropped)
		assert.Zero(t, sub.Dropped())
		checkPerKeyOrder(t, got, false)
	})
}

// TestSlowSubscriptionDropsTheOldestEventsAndCountsThem publishes far more
// than a subscription holds while nobody reads it: publishing never waits,
// the buffer never grows, and the reader gets the newest events, in order,
// with the number it lost.
// Diagram: none (the page's event feed). client-go: none.
func TestSlowSubscriptionDropsTheOldestEventsAndCountsThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hub := pipelineweb.NewHub(nil, 100)
		_, sub := hub.Subscribe(64)
		defer sub.Close()

		publishKeys(hub, []string{"a", "b", "c"}, 2000, 0)
		size, held := pipelineweb.BufferSize(sub)
		events, dropped := sub.Next()

		assert.Equal(t, 64, size, "the buffer keeps its size")
		assert.Equal(t, 64, held)
		assert.Len(t, events, 64)
		assert.Equal(t, 6000-64, dropped)
		assert.Equal(t, uint64(6000-64), sub.Dropped())
		assert.Equal(t, uint64(6000), events[63].Seq, "the newest events are kept")
		checkPerKeyOrder(t, events, true)
		more, dropped := sub.Next()
		assert.Empty(t, more)
		assert.Zero(t, dropped, "a drop is reported once")
	})
}

// TestSubscribeReturnsTheHistoryThenEveryLaterEvent: a page that opens
// late gets the recent history and then the following events, with no gap
// and no repeat; the history is bounded.
// Diagram: none (the page's event feed). client-go: none.
func TestSubscribeReturnsTheHistoryThenEveryLaterEvent(t *testing.T) {
	hub := pipelineweb.NewHub(nil, 5)
	for i := range 8 {
		hub.Publish(pipelineweb.Event{Key: "k", Text: fmt.Sprint(i)})
	}

	history, sub := hub.Subscribe(10)
	defer sub.Close()
	hub.Publish(pipelineweb.Event{Key: "k", Text: "8"})
	later, dropped := sub.Next()

	require.Len(t, history, 5)
	assert.Equal(t, uint64(4), history[0].Seq)
	assert.Equal(t, uint64(8), history[4].Seq)
	require.Len(t, later, 1)
	assert.Equal(t, uint64(9), later[0].Seq)
	assert.Zero(t, dropped)
}

// TestClosedSubscriptionIsForgotten: after Close the hub no longer offers
// it anything.
// Diagram: none (the page's event feed). client-go: none.
func TestClosedSubscriptionIsForgotten(t *testing.T) {
	hub := pipelineweb.NewHub(nil, 5)
	_, sub := hub.Subscribe(4)
	require.Equal(t, 1, hub.Subscribers())

	sub.Close()
	sub.Close()
	hub.Publish(pipelineweb.Event{Key: "k"})
	events, _ := sub.Next()

	assert.Zero(t, hub.Subscribers())
	assert.Empty(t, events)
}
