package pipelineweb_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

func newModelHub() (*pipelineweb.Model, *pipelineweb.Hub) {
	m := pipelineweb.NewModel()
	return m, pipelineweb.NewHub(m, 10)
}

// TestModelKeepsOneDeltaFIFOEntryPerKeyUntilItIsPopped: deltas for a
// queued key join its entry, in order; a pop removes the entry.
// Diagram: steps 2-3. client-go: DeltaFIFO.queueActionLocked, Pop.
func TestModelKeepsOneDeltaFIFOEntryPerKeyUntilItIsPopped(t *testing.T) {
	m, hub := newModelHub()
	queue := func(key, delta string) {
		hub.Publish(pipelineweb.Event{Op: pipelineweb.OpQueued, Kind: "Foo", Key: key, Deltas: []string{delta}})
	}

	queue("default/a", "Added")
	queue("default/b", "Added")
	queue("default/a", "Updated")
	before := m.Snapshot().FIFO
	hub.Publish(pipelineweb.Event{Op: pipelineweb.OpPop, Kind: "Foo", Key: "default/a", Deltas: []string{"Added", "Updated"}})
	after := m.Snapshot().FIFO

	assert.Equal(t, []pipelineweb.FIFOEntry{
		{Kind: "Foo", Key: "default/a", Deltas: []string{"Added", "Updated"}},
		{Kind: "Foo", Key: "default/b", Deltas: []string{"Added"}},
	}, before)
	assert.Equal(t, []pipelineweb.FIFOEntry{{Kind: "Foo", Key: "default/b", Deltas: []string{"Added"}}}, after)
	assert.Equal(t, []pipelineweb.FIFOEntry{{Kind: "Foo", Key: "default/a", Deltas: []string{"Added", "Updated"}}}, m.Snapshot().Popped,
		"the pop handed both deltas over at once")
}

// TestModelWorkqueueNeverHandsOutAKeyThatIsProcessing: a key added while a
// worker holds it is dirty, not waiting; Done puts it back in line; adds of
// a waiting key collapse.
// Diagram: steps 7-8. client-go: workqueue.Type Add, Get, Done.
func TestModelWorkqueueNeverHandsOutAKeyThatIsProcessing(t *testing.T) {
	m, hub := newModelHub()
	pub := func(op pipelineweb.Op, key, verb string) {
		hub.Publish(pipelineweb.Event{Op: op, Controller: "foo", Key: key, Verb: verb})
	}
	queue := func() pipelineweb.QueueState {
		st := m.Snapshot()
		require.Len(t, st.Queues, 1)
		return st.Queues[0]
	}

	pub(pipelineweb.OpEnqueue, "default/a", "")
	pub(pipelineweb.OpEnqueue, "default/a", "")
	waiting := queue()
	pub(pipelineweb.OpGetKey, "default/a", "")
	pub(pipelineweb.OpEnqueue, "default/a", "")
	busy := queue()
	pub(pipelineweb.OpReconcile, "default/a", "done")
	done := queue()

	assert.Equal(t, []string{"default/a"}, waiting.Waiting, "two adds, one entry")
	assert.Empty(t, busy.Waiting, "a processing key is not handed out again")
	assert.Equal(t, []string{"default/a"}, busy.Processing)
	assert.Equal(t, []string{"default/a"}, busy.Dirty)
	assert.Equal(t, "default/a", busy.Busy)
	assert.Equal(t, []string{"default/a"}, done.Waiting, "Done puts the dirty key back in line")
	assert.Empty(t, done.Processing)
	assert.Empty(t, done.Busy)
	assert.Equal(t, 1, done.Outcomes["done"])
}

// TestModelShowsARetryUntilTheKeySucceeds: a failed Reconcile's backoff is
// a retry with its next attempt; the retry runs; a success forgets it.
// Diagram: steps 7-8. client-go: RateLimitingInterface AddRateLimited, Forget.
func TestModelShowsARetryUntilTheKeySucceeds(t *testing.T) {
	m, hub := newModelHub()
	pub := func(e pipelineweb.Event) pipelineweb.Event {
		e.Controller, e.Key = "foo", "default/a"
		return hub.Publish(e)
	}

	pub(pipelineweb.Event{Op: pipelineweb.OpEnqueue})
	pub(pipelineweb.Event{Op: pipelineweb.OpGetKey})
	pub(pipelineweb.Event{Op: pipelineweb.OpReconcile, Verb: "error"})
	b := pub(pipelineweb.Event{Op: pipelineweb.OpBackoff, DelayMS: 20, Failures: 3})
	waiting := m.Snapshot().Queues[0]
	pub(pipelineweb.Event{Op: pipelineweb.OpGetKey})
	running := m.Snapshot().Queues[0]
	pub(pipelineweb.Event{Op: pipelineweb.OpReconcile, Verb: "done"})
	done := m.Snapshot().Queues[0]

	assert.Equal(t, []pipelineweb.Retry{{Key: "default/a", Failures: 3, DelayMS: 20, NextAt: b.Time + 20}}, waiting.Retries)
	require.Len(t, running.Retries, 1)
	assert.True(t, running.Retries[0].Running)
	assert.Empty(t, done.Retries)
	assert.Equal(t, map[string]int{"error": 1, "done": 1}, done.Outcomes)
}

// TestModelFollowsEachReflectorsStateAndCountsRelists: the last state
// change wins; every LIST after the first is a relist.
// Diagram: step 1. client-go: Reflector.ListAndWatch.
func TestModelFollowsEachReflectorsStateAndCountsRelists(t *testing.T) {
	m, hub := newModelHub()
	pub := func(e pipelineweb.Event) { e.Kind = "Foo"; hub.Publish(e) }

	pub(pipelineweb.Event{Op: pipelineweb.OpReflector, State: "listing"})
	pub(pipelineweb.Event{Op: pipelineweb.OpList})
	pub(pipelineweb.Event{Op: pipelineweb.OpList, Key: "default/a"}) // a listed item, not a LIST
	pub(pipelineweb.Event{Op: pipelineweb.OpReflector, State: "watching"})
	pub(pipelineweb.Event{Op: pipelineweb.OpWatch, Verb: "open"})
	pub(pipelineweb.Event{Op: pipelineweb.OpReflector, State: "backing off to relist", Cause: "410"})
	pub(pipelineweb.Event{Op: pipelineweb.OpReflector, DelayMS: 800})
	pub(pipelineweb.Event{Op: pipelineweb.OpList})
	st := m.Snapshot()

	require.Len(t, st.Reflectors, 1)
	r := st.Reflectors[0]
	assert.Equal(t, "backing off to relist", r.State)
	assert.Equal(t, "410", r.Cause)
	assert.Equal(t, 2, r.Lists)
	assert.Equal(t, 1, r.Relists)
	assert.Equal(t, 1, r.Watches)
	assert.Equal(t, 800.0, r.BackoffMS)
	assert.Equal(t, []string{"listing", "watching", "backing off to relist"}, r.Recent)
}

// TestModelCountsTheHandlersBacklog: every dispatch waits in the handlers'
// buffers until a handler runs for it; a notification replayed to a new
// handler (never dispatched) changes nothing.
// Diagram: step 6. client-go: processorListener's buffer.
func TestModelCountsTheHandlersBacklog(t *testing.T) {
	m, hub := newModelHub()
	pub := func(op pipelineweb.Op, key string, n int) {
		hub.Publish(pipelineweb.Event{Op: op, Kind: "Deployment", Key: key, Count: n})
	}

	pub(pipelineweb.OpHandler, "default/old", 0) // a replay
	pub(pipelineweb.OpDispatch, "default/a", 2)
	pub(pipelineweb.OpDispatch, "default/b", 2)
	pub(pipelineweb.OpHandler, "default/a", 0)
	st := m.Snapshot()

	assert.Equal(t, []pipelineweb.HandlerState{{Kind: "Deployment", Received: 2, Backlog: 3}}, st.Handlers)
}
