package deltafifo_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestReplaceEmitsReplacedDeltasAndTombstonesForQueuedKeys: an object whose
// Added delta is still queued and that the relist no longer lists gets a
// tombstone, carrying the newest queued object.
// Diagram: step 2. client-go: DeltaFIFO.Replace
func TestReplaceEmitsReplacedDeltasAndTombstonesForQueuedKeys(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{KnownObjects: newKnownStore()})
	checked(t, f, f.Add(obj("x", "1")))
	checked(t, f, f.Update(obj("x", "2")))

	t.Log("x is added and updated, still queued, never popped; then a relist lists [a@3 b@3], without x")
	checked(t, f, f.Replace([]any{obj("a", "3"), obj("b", "3")}, "3"))

	assert.Equal(t, []string{"default/x", "default/a", "default/b"}, f.ListKeys())
	assert.Equal(t, []popped{
		{Deltas: []string{"Added x@1", "Updated x@2", "Deleted tombstone default/x (x@2)"}},
		{Deltas: []string{"Replaced a@3"}},
		{Deltas: []string{"Replaced b@3"}},
	}, popAll(t, f, nil))
}

// TestReplaceEmitsTombstonesForKnownObjectsMissingFromList: an object the
// consumer stored that the relist no longer lists was deleted while the watch
// was down; its tombstone carries the stored object. Known keys are visited
// in sorted order.
// Diagram: step 2. client-go: DeltaFIFO.Replace
func TestReplaceEmitsTombstonesForKnownObjectsMissingFromList(t *testing.T) {
	store := newKnownStore(obj("c", "1"), obj("a", "1"), obj("b", "1"))
	f := deltafifo.New(deltafifo.Options{KnownObjects: store})

	t.Log("the store knows a@1, b@1, c@1; a relist lists only b@2")
	checked(t, f, f.Replace([]any{obj("b", "2")}, "2"))

	assert.Equal(t, []popped{
		{Deltas: []string{"Replaced b@2"}, Initial: true},
		{Deltas: []string{"Deleted tombstone default/a (a@1)"}, Initial: true},
		{Deltas: []string{"Deleted tombstone default/c (c@1)"}, Initial: true},
	}, popAll(t, f, store))
	assert.Equal(t, []string{"default/b"}, store.ListKeys())
}

// TestReplaceTombstoneHasNilObjectWhenStoreCannotAnswer: a known key whose
// object cannot be read still gets its tombstone, with a nil Obj.
// Diagram: step 2. client-go: DeltaFIFO.Replace
func TestReplaceTombstoneHasNilObjectWhenStoreCannotAnswer(t *testing.T) {
	store := newKnownStore(obj("a", "1"))
	store.failGet["default/a"] = errors.New("store unavailable")
	f := deltafifo.New(deltafifo.Options{KnownObjects: store, Logger: discard()})

	t.Log("the store lists key default/a but cannot return its object; a relist lists nothing")
	checked(t, f, f.Replace(nil, "2"))

	assert.Equal(t, []popped{{Deltas: []string{"Deleted tombstone default/a (nil)"}, Initial: true}}, popAll(t, f, nil))
}

// TestReplaceDoesNotSkipRecreatedObject: a Replace for a key whose last
// queued delta is Deleted is still queued, so an object deleted and
// recreated while disconnected reaches the consumer.
// Diagram: step 2. client-go: DeltaFIFO.Replace
func TestReplaceDoesNotSkipRecreatedObject(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{KnownObjects: newKnownStore(obj("a", "1"))})
	checked(t, f, f.Delete(obj("a", "1")))

	t.Log("a@1 is deleted (the Deleted delta still queued), then a relist lists a@5: a was recreated")
	checked(t, f, f.Replace([]any{obj("a", "5")}, "5"))

	assert.Equal(t, []popped{{Deltas: []string{"Deleted a@1", "Replaced a@5"}}}, popAll(t, f, nil))
}

// TestReplaceIsAllOrNothing: if one listed object cannot be transformed,
// Replace queues nothing at all, not half a relist.
// Diagram: step 2. client-go: DeltaFIFO.Replace
func TestReplaceIsAllOrNothing(t *testing.T) {
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{
				KnownObjects: newKnownStore(obj("gone", "1")),
				Transformer: func(o any) (any, error) {
					if showObj(o) == "bad@1" {
						return nil, errors.New("cannot transform")
					}
					return o, nil
				},
			})

			err := f.Replace([]any{obj("a", "1"), obj("bad", "1"), obj("c", "1")}, "1")
			t.Logf("%s: Replace([a bad c]) where bad cannot be transformed: %v; queued keys afterwards: %v, HasSynced: %v", q.name, err, f.ListKeys(), f.HasSynced())

			assert.ErrorContains(t, err, `deltafifo: replace: item 1 ("default/bad"): transform: cannot transform`)
			assert.Empty(t, f.ListKeys())
			assert.False(t, f.HasSynced(), "a failed first Replace is not the initial list")
			require.NoError(t, deltafifo.CheckInvariants(f))
		})
	}
}

// TestReplaceListingTheSameKeyTwiceQueuesBoth: duplicates in a list are not
// merged; the key is counted once toward the initial list.
// Diagram: step 2. client-go: DeltaFIFO.Replace
func TestReplaceListingTheSameKeyTwiceQueuesBoth(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})

	checked(t, f, f.Replace([]any{obj("a", "1"), obj("a", "2")}, "2"))

	assert.Equal(t, []popped{{Deltas: []string{"Replaced a@1", "Replaced a@2"}, Initial: true}}, popAll(t, f, nil))
	assert.True(t, f.HasSynced())
}

// TestResyncQueuesSyncOnlyForKnownKeysWithNothingQueued: a key with a queued
// delta is skipped, because the stored copy is older than what waits.
// Diagram: step 2. client-go: DeltaFIFO.Resync
func TestResyncQueuesSyncOnlyForKnownKeysWithNothingQueued(t *testing.T) {
	store := newKnownStore(obj("a", "1"), obj("c", "1"), obj("b", "1"))
	f := deltafifo.New(deltafifo.Options{KnownObjects: store})
	checked(t, f, f.Update(obj("b", "2")))

	t.Log("the store holds a@1, b@1, c@1; b@2 is queued; then Resync")
	checked(t, f, f.Resync())

	assert.Equal(t, []popped{
		{Deltas: []string{"Updated b@2"}},
		{Deltas: []string{"Sync a@1"}},
		{Deltas: []string{"Sync c@1"}},
	}, popAll(t, f, store))
}

// TestResyncWithoutKnownObjectsDoesNothing: with no store there is nothing
// to re-deliver.
// Diagram: step 2. client-go: DeltaFIFO.Resync
func TestResyncWithoutKnownObjectsDoesNothing(t *testing.T) {
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			checked(t, f, f.Add(obj("a", "1")))
			popAll(t, f, nil)

			checked(t, f, f.Resync())

			assert.Empty(t, f.ListKeys())
			t.Logf("%s without KnownObjects: Resync queued %d keys", q.name, len(f.ListKeys()))
		})
	}
}

// TestResyncNeverQueuesAStaleObjectWhileTheConsumerRuns: Resync reads the
// store and queues under the same lock the consumer's process runs under, so
// a Sync delta always carries exactly what the store holds when the consumer
// reaches it. A producer, a resyncer and a consumer race here; the consumer
// checks every Sync it sees.
// Diagram: step 2. client-go: DeltaFIFO.Resync
func TestResyncNeverQueuesAStaleObjectWhileTheConsumerRuns(t *testing.T) {
	const updates = 5000
	store := newKnownStore(obj("a", "0"))
	f := deltafifo.New(deltafifo.Options{KnownObjects: store})
	var wg sync.WaitGroup
	stale := make(chan string, 1)

	wg.Go(func() {
		for i := 1; i <= updates; i++ {
			_ = f.Update(obj("a", fmt.Sprint(i)))
		}
		f.Close()
	})
	wg.Go(func() {
		for !f.IsClosed() {
			_ = f.Resync()
		}
	})
	for {
		_, err := f.Pop(func(ds deltafifo.Deltas, _ bool) error {
			for _, d := range ds {
				if d.Type == deltafifo.Sync && store.get("default/a") != d.Object {
					select {
					case stale <- fmt.Sprintf("Sync %s while the store holds %s", showObj(d.Object), showObj(store.get("default/a"))):
					default:
					}
				}
				store.apply(deltafifo.Deltas{d})
			}
			return nil
		})
		if errors.Is(err, deltafifo.ErrFIFOClosed) {
			break
		}
		require.NoError(t, err)
	}
	wg.Wait()
	t.Logf("%d updates raced a resync loop and the consumer; the store ends at %s, and no Sync delta ever carried an object older than the store's", updates, showObj(store.get("default/a")))

	require.NoError(t, deltafifo.CheckInvariants(f))
	select {
	case msg := <-stale:
		t.Fatal(msg)
	default:
	}
	assert.Equal(t, fmt.Sprintf("a@%d", updates), showObj(store.get("default/a")))
}
