package deltafifo_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
)

// TestDeltasAccumulatePerKeyWithoutMovingInLine: a key that gets more deltas
// keeps its place; the consumer gets the whole history of that key at once.
// Diagram: step 2. client-go: DeltaFIFO.queueActionLocked (TestDeltaFIFO_detectLineJumpers)
func TestDeltasAccumulatePerKeyWithoutMovingInLine(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})

	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "1")))
	checked(t, f, f.Update(obj("a", "2")))
	checked(t, f, f.Update(obj("a", "3")))

	t.Logf("Add a@1, Add b@1, Update a@2, Update a@3: queued keys %v; a keeps its place", f.ListKeys())
	assert.Equal(t, []string{"default/a", "default/b"}, f.ListKeys())
	assert.Equal(t, []popped{
		{Deltas: []string{"Added a@1", "Updated a@2", "Updated a@3"}},
		{Deltas: []string{"Added b@1"}},
	}, popAll(t, f, nil))
}

// TestConsecutiveDeletesCollapseKeepingTheOneWithMoreInformation: the same
// deletion reported twice becomes one Deleted delta; a real object is kept
// over a tombstone, otherwise the older report wins.
// Diagram: step 2. client-go: DeltaFIFO dedupDeltas / isDeletionDup
func TestConsecutiveDeletesCollapseKeepingTheOneWithMoreInformation(t *testing.T) {
	tombstone := func(rv string) any {
		return deltafifo.DeletedFinalStateUnknown{Key: "default/a", Obj: obj("a", rv)}
	}
	tests := []struct {
		name          string
		first, second any
		want          string
	}{
		{"two real objects keep the older", obj("a", "1"), obj("a", "2"), "Deleted a@1"},
		{"tombstone then real keeps the real one", tombstone("1"), obj("a", "2"), "Deleted a@2"},
		{"real then tombstone keeps the real one", obj("a", "1"), tombstone("2"), "Deleted a@1"},
		{"two tombstones keep the newer", tombstone("1"), tombstone("2"), "Deleted tombstone default/a (a@2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(deltafifo.Options{KnownObjects: newKnownStore(obj("a", "0"))})

			t.Logf("%s: Delete(%s), then Delete(%s)", tt.name, showObj(tt.first), showObj(tt.second))
			checked(t, f, f.Delete(tt.first))
			checked(t, f, f.Delete(tt.second))

			assert.Equal(t, []popped{{Deltas: []string{tt.want}}}, popAll(t, f, nil))
		})
	}
}

// TestDeletesSeparatedByAnotherDeltaAreKept: only two deletions in a row are
// duplicates; delete, recreate, delete is three real events.
// Diagram: step 2. client-go: DeltaFIFO dedupDeltas
func TestDeletesSeparatedByAnotherDeltaAreKept(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{KnownObjects: newKnownStore(obj("a", "1"))})

	t.Log("Delete a@1, Add a@2, Delete a@2: nothing collapses")
	checked(t, f, f.Delete(obj("a", "1")))
	checked(t, f, f.Add(obj("a", "2")))
	checked(t, f, f.Delete(obj("a", "2")))

	assert.Equal(t, []popped{{Deltas: []string{"Deleted a@1", "Added a@2", "Deleted a@2"}}}, popAll(t, f, nil))
}

// TestDeleteOfUnknownKeyIsIgnored: a Delete for a key that is neither queued
// nor known was already reported (by a relist tombstone) or never seen.
// Diagram: step 2. client-go: DeltaFIFO.Delete
func TestDeleteOfUnknownKeyIsIgnored(t *testing.T) {
	t.Run("without known objects", func(t *testing.T) {
		f := deltafifo.New(deltafifo.Options{})

		checked(t, f, f.Delete(obj("a", "1")))

		assert.Empty(t, f.ListKeys())
		assert.True(t, f.HasSynced(), "a Delete before any Replace still counts as populating")
		t.Logf("without known objects: Delete(a) queues %v", f.ListKeys())
	})
	t.Run("unknown to the store", func(t *testing.T) {
		f := deltafifo.New(deltafifo.Options{KnownObjects: newKnownStore(obj("b", "1"))})

		checked(t, f, f.Delete(obj("a", "1")))
		checked(t, f, f.Delete(obj("b", "1")))

		assert.Equal(t, []string{"default/b"}, f.ListKeys(), "a key the store knows is deleted")
		t.Logf("the store knows only b: Delete(a), Delete(b) queue %v", f.ListKeys())
	})
	t.Run("already deleted by a relist", func(t *testing.T) {
		store := newKnownStore(obj("a", "1"))
		f := deltafifo.New(deltafifo.Options{KnownObjects: store})
		checked(t, f, f.Replace(nil, "5"))
		popAll(t, f, store)

		checked(t, f, f.Delete(obj("a", "1")))

		assert.Empty(t, f.ListKeys(), "the tombstone already told the consumer")
		t.Logf("a relist already turned a into a tombstone: Delete(a) queues %v", f.ListKeys())
	})
	t.Run("a store that cannot answer counts as knowing", func(t *testing.T) {
		store := newKnownStore()
		store.failGet["default/a"] = errors.New("store unavailable")
		f := deltafifo.New(deltafifo.Options{KnownObjects: store})

		checked(t, f, f.Delete(obj("a", "1")))

		assert.Equal(t, []string{"default/a"}, f.ListKeys())
		t.Logf("a store that cannot answer for a: Delete(a) queues %v", f.ListKeys())
	})
}

// TestTransformerNotAppliedToSyncDeltasOrTombstones: objects are transformed
// once, on the way in; a Sync re-delivers the stored (already transformed)
// object and a tombstone wraps one, so neither is transformed again.
// Diagram: step 2. client-go: DeltaFIFO.queueActionInternalLocked
func TestTransformerNotAppliedToSyncDeltasOrTombstones(t *testing.T) {
	calls := 0
	store := newKnownStore()
	f := deltafifo.New(deltafifo.Options{KnownObjects: store, Transformer: func(o any) (any, error) {
		calls++
		return markTransformed(o), nil
	}})

	checked(t, f, f.Add(obj("a", "1")))
	checked(t, f, f.Add(obj("b", "1")))
	assert.Equal(t, []popped{{Deltas: []string{"Added a@1 t1"}}, {Deltas: []string{"Added b@1 t1"}}}, popAll(t, f, store))
	checked(t, f, f.Resync())
	assert.Equal(t, []popped{{Deltas: []string{"Sync a@1 t1"}}, {Deltas: []string{"Sync b@1 t1"}}}, popAll(t, f, store))
	checked(t, f, f.Replace([]any{obj("a", "2")}, "9"))
	checked(t, f, f.Delete(deltafifo.DeletedFinalStateUnknown{Key: "default/a", Obj: obj("a", "2")}))

	assert.Equal(t, []popped{
		{Deltas: []string{"Replaced a@2 t1", "Deleted tombstone default/a (a@2)"}},
		{Deltas: []string{"Deleted tombstone default/b (b@1 t1)"}},
	}, popAll(t, f, store))
	assert.Equal(t, 3, calls, "a@1, b@1 and a@2: one call per object that came from outside")
	t.Logf("the transformer ran %d times: once for each object that came from outside (\" t1\" marks a transformed object), never for Sync deltas or tombstones", calls)
}

// markTransformed returns a copy of o with its "transformed" annotation
// counting how many times the transformer saw it.
func markTransformed(o any) any {
	p := o.(*metav1.PartialObjectMetadata).DeepCopy()
	n, _ := strconv.Atoi(p.Annotations["transformed"])
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations["transformed"] = strconv.Itoa(n + 1)
	return p
}

// TestTransformerErrorAbortsTheEnqueue: an object the transformer rejects is
// not queued, and the error reaches the producer.
// Diagram: step 2. client-go: DeltaFIFO.queueActionInternalLocked
func TestTransformerErrorAbortsTheEnqueue(t *testing.T) {
	boom := errors.New("boom")
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{Transformer: func(any) (any, error) { return nil, boom }})

			err := f.Add(obj("a", "1"))
			t.Logf("%s: Add with a failing transformer: %v; queued keys: %v", q.name, err, f.ListKeys())

			require.ErrorIs(t, err, boom)
			assert.ErrorContains(t, err, `deltafifo: add "default/a": transform: boom`)
			assert.Empty(t, f.ListKeys())
			assert.False(t, f.HasSynced(), "a failed Add populates nothing")
			require.NoError(t, deltafifo.CheckInvariants(f))
		})
	}
}

// TestObjectWithoutMetadataIsAKeyError: the producer gets an indexer.KeyError,
// never a panic, and nothing is queued.
// Diagram: step 2. client-go: DeltaFIFO.KeyOf
func TestObjectWithoutMetadataIsAKeyError(t *testing.T) {
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})

			errs := []error{f.Add("not an object"), f.Update(42), f.Delete(nil), f.Replace([]any{obj("a", "1"), struct{}{}}, "1")}

			for _, err := range errs {
				var keyErr indexer.KeyError
				assert.ErrorAs(t, err, &keyErr)
				assert.ErrorContains(t, err, "deltafifo: ")
			}
			assert.Empty(t, f.ListKeys(), "a bad item fails the whole Replace")
			require.NoError(t, deltafifo.CheckInvariants(f))
		})
	}
}

// TestKeyOfUnwrapsDeltasAndTombstones: KeyOf takes what Pop and a relist
// produce as well as plain objects.
// Diagram: step 3. client-go: DeltaFIFO.KeyOf
func TestKeyOfUnwrapsDeltasAndTombstones(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})

	plain, err1 := f.KeyOf(obj("a", "1"))
	fromDeltas, err2 := f.KeyOf(deltafifo.Deltas{{Type: deltafifo.Added, Object: obj("b", "1")}})
	fromTombstone, err3 := f.KeyOf(deltafifo.DeletedFinalStateUnknown{Key: "other/c"})
	_, errEmpty := f.KeyOf(deltafifo.Deltas{})

	require.NoError(t, errors.Join(err1, err2, err3))
	assert.Equal(t, []string{"default/a", "default/b", "other/c"}, []string{plain, fromDeltas, fromTombstone})
	assert.ErrorIs(t, errEmpty, deltafifo.ErrZeroLengthDeltasObject)
}

// TestDeletionHandlingMetaNamespaceKeyFunc: the key function delete handlers
// use returns a tombstone's key and an object's namespace/name.
// Diagram: step 6. client-go: tools/cache.DeletionHandlingMetaNamespaceKeyFunc
func TestDeletionHandlingMetaNamespaceKeyFunc(t *testing.T) {
	k1, err1 := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(deltafifo.DeletedFinalStateUnknown{Key: "ns/gone"})
	k2, err2 := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj("a", "1"))
	_, err3 := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(3)

	require.NoError(t, errors.Join(err1, err2))
	t.Logf("DeletionHandlingMetaNamespaceKeyFunc(tombstone for ns/gone) = %q; (object a) = %q; (3): %v", k1, k2, err3)
	assert.Equal(t, "ns/gone", k1)
	assert.Equal(t, "default/a", k2)
	assert.Error(t, err3)
}

// TestDeltasOldestAndNewest: Oldest and Newest are nil for an empty Deltas.
// Diagram: step 3. client-go: Deltas.Oldest, Deltas.Newest
func TestDeltasOldestAndNewest(t *testing.T) {
	ds := deltafifo.Deltas{{Type: deltafifo.Added, Object: obj("a", "1")}, {Type: deltafifo.Updated, Object: obj("a", "2")}}

	assert.Equal(t, "Added a@1", show(*ds.Oldest()))
	assert.Equal(t, "Updated a@2", show(*ds.Newest()))
	assert.Nil(t, deltafifo.Deltas{}.Oldest())
	assert.Nil(t, deltafifo.Deltas(nil).Newest())
}
