package deltafifosuite

import (
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
)

// Queue is the API the suite grades: the producer's side (Add, Update,
// Delete, Replace, Resync), the consumer's (Pop, HasSynced) and Close.
// deltafifo.Queue has all of these.
type Queue interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
	Resync() error
	Pop(process deltafifo.PopProcessFunc) (deltafifo.Deltas, error)
	HasSynced() bool
	Close()
	ListKeys() []string
}

// Impl is how an implementation plugs in.
type Impl struct {
	// New returns an empty queue that keys objects with keyFunc (called
	// on the object inside a DeletedFinalStateUnknown too: the suite
	// passes deltafifo.DeletionHandlingMetaNamespaceKeyFunc) and reads
	// the consumer's store through known, which may be nil.
	New func(keyFunc indexer.KeyFunc, known deltafifo.KeyListerGetter) Queue
}

// Reference is informerlab's own implementation: what
// deltafifo/suite_test.go grades, and what labs/4-deltafifo wires in under
// the labs_reference build tag.
var Reference = Impl{
	New: func(kf indexer.KeyFunc, known deltafifo.KeyListerGetter) Queue {
		return deltafifo.New(deltafifo.Options{KeyFunction: kf, KnownObjects: known})
	},
}

const (
	docDesign    = "docs/deltafifo.md#the-design-a-line-of-keys-a-history-per-key"
	docCoalesce  = "docs/deltafifo.md#coalescing-without-moving-in-line"
	docDeletes   = "docs/deltafifo.md#duplicate-deletions-collapse-deletes-of-unknown-objects-are-dropped"
	docReplace   = "docs/deltafifo.md#replace-and-the-tombstone"
	docResync    = "docs/deltafifo.md#resync"
	docPop       = "docs/deltafifo.md#pop-the-lock-and-close"
	docHasSynced = "docs/deltafifo.md#hassynced-after-the-last-initial-item-is-processed"
)

// Behaviours returns the graded behaviours of a DeltaFIFO.
func Behaviours(impl Impl) []grade.Behaviour {
	// newQueue returns a queue whose consumer's store holds known.
	newQueue := func(t *testing.T, known ...*metav1.PartialObjectMetadata) (Queue, indexer.Store) {
		t.Helper()
		store := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
		for _, o := range known {
			require.NoError(t, store.Add(o))
		}
		return impl.New(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, store), store
	}
	return []grade.Behaviour{
		{
			Name: "PopHandsOutKeysInArrivalOrder",
			Want: "Pop returns the keys in the order they first arrived, each with an Added delta holding the object",
			Doc:  docDesign,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				a, b, c := obj("a", "1"), obj("b", "1"), obj("c", "1")
				for _, o := range []any{a, b, c} {
					require.NoError(t, q.Add(o))
				}
				assert.ElementsMatch(t, []string{"ns/a", "ns/b", "ns/c"}, q.ListKeys())
				for _, want := range []any{a, b, c} {
					got := pop(t, q)
					require.Len(t, got.deltas, 1)
					assert.Equal(t, deltafifo.Added, got.deltas[0].Type)
					assert.Same(t, want, got.deltas[0].Object)
				}
				assert.Empty(t, q.ListKeys())
			},
		},
		{
			Name: "DeltasAccumulateWithoutMovingInLine",
			Want: "a key that gets more deltas while queued keeps its place, and Pop hands over its whole history, oldest first",
			Doc:  docCoalesce,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Add(obj("a", "1")))
				require.NoError(t, q.Add(obj("b", "1")))
				require.NoError(t, q.Update(obj("a", "2")))
				require.NoError(t, q.Update(obj("a", "3")))
				require.NoError(t, q.Delete(obj("a", "4")))
				got := pop(t, q)
				assert.Equal(t, "ns/a", got.key, "a keeps its place in front of b")
				assert.Equal(t, []string{"Added/1", "Updated/2", "Updated/3", "Deleted/4"}, got.summary())
				assert.Equal(t, "ns/b", pop(t, q).key)
			},
		},
		{
			Name: "ConsecutiveDeletesCollapse",
			Want: "two Deleted deltas in a row collapse into one, keeping the real object over a tombstone",
			Doc:  docDeletes,
			Test: func(t *testing.T) {
				q, _ := newQueue(t, obj("a", "1"))
				require.NoError(t, q.Delete(obj("a", "2")))
				require.NoError(t, q.Delete(obj("a", "3")))
				assert.Equal(t, []string{"Deleted/2"}, pop(t, q).summary())

				q, _ = newQueue(t, obj("b", "1"))
				require.NoError(t, q.Delete(deltafifo.DeletedFinalStateUnknown{Key: "ns/b", Obj: obj("b", "1")}))
				require.NoError(t, q.Delete(obj("b", "5")))
				assert.Equal(t, []string{"Deleted/5"}, pop(t, q).summary())
			},
		},
		{
			Name: "DeleteOfUnknownObjectIsDropped",
			Want: "Delete of an object neither queued nor in the consumer's store queues nothing; a known one is queued",
			Doc:  docDeletes,
			Test: func(t *testing.T) {
				q, _ := newQueue(t, obj("known", "1"))
				require.NoError(t, q.Delete(obj("stranger", "1")))
				assert.Empty(t, q.ListKeys())
				require.NoError(t, q.Delete(obj("known", "2")))
				assert.Equal(t, []string{"ns/known"}, q.ListKeys())
			},
		},
		{
			Name: "KeyErrorIsReturned",
			Want: "Add, Update and Delete of something that cannot be keyed return the error and queue nothing",
			Doc:  docDesign,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				assert.Error(t, q.Add("not an object"))
				assert.Error(t, q.Update(42))
				assert.Error(t, q.Delete(3.5))
				assert.Empty(t, q.ListKeys())
			},
		},
		{
			Name: "ReplaceQueuesEveryListedObject",
			Want: "Replace gives every listed object a Replaced delta, in list order, even a key whose last delta is Deleted",
			Doc:  docReplace,
			Test: func(t *testing.T) {
				q, _ := newQueue(t, obj("gone-then-back", "1"))
				require.NoError(t, q.Delete(obj("gone-then-back", "1")))
				require.NoError(t, q.Replace([]any{obj("gone-then-back", "7"), obj("x", "7"), obj("y", "7")}, "7"))
				assert.Equal(t, []string{"Deleted/1", "Replaced/7"}, pop(t, q).summary())
				assert.Equal(t, []string{"Replaced/7"}, pop(t, q).summary())
				last := pop(t, q)
				assert.Equal(t, "ns/y", last.key)
				assert.Equal(t, []string{"Replaced/7"}, last.summary())
			},
		},
		{
			Name: "ReplaceTombstonesKnownObjectsMissingFromList",
			Want: "an object in the consumer's store that the list lacks gets a Deleted delta holding DeletedFinalStateUnknown{Key, the stored object}",
			Doc:  docReplace,
			Test: func(t *testing.T) {
				stored := obj("gone", "3")
				q, _ := newQueue(t, obj("kept", "3"), stored)
				require.NoError(t, q.Replace([]any{obj("kept", "4")}, "4"))
				got := popAll(t, q)
				require.Contains(t, got, "ns/gone")
				deltas := got["ns/gone"].deltas
				require.Len(t, deltas, 1)
				assert.Equal(t, deltafifo.Deleted, deltas[0].Type)
				tomb, ok := deltas[0].Object.(deltafifo.DeletedFinalStateUnknown)
				require.True(t, ok, "a tombstone, got %T", deltas[0].Object)
				assert.Equal(t, "ns/gone", tomb.Key)
				assert.Same(t, stored, tomb.Obj)
				assert.Equal(t, []string{"Replaced/4"}, got["ns/kept"].summary())
			},
		},
		{
			Name: "ReplaceTombstonesQueuedObjectsMissingFromList",
			Want: "a queued key the list lacks (created and deleted while the watch was down) gets a tombstone holding its newest queued object",
			Doc:  docReplace,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Add(obj("brief", "1")))
				require.NoError(t, q.Update(obj("brief", "2")))
				require.NoError(t, q.Replace([]any{obj("other", "3")}, "3"))
				got := popAll(t, q)
				require.Contains(t, got, "ns/brief")
				deltas := got["ns/brief"].deltas
				require.Len(t, deltas, 3)
				assert.Equal(t, deltafifo.Deleted, deltas[2].Type)
				tomb, ok := deltas[2].Object.(deltafifo.DeletedFinalStateUnknown)
				require.True(t, ok, "a tombstone, got %T", deltas[2].Object)
				assert.Equal(t, "ns/brief", tomb.Key)
				assert.Equal(t, "2", tomb.Obj.(metav1.Object).GetResourceVersion())
			},
		},
		{
			Name: "HasSyncedAfterInitialListIsProcessed",
			Want: "HasSynced is false until every key of the first Replace has been popped and processed, then true",
			Doc:  docHasSynced,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				assert.False(t, q.HasSynced(), "before any Replace")
				require.NoError(t, q.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
				assert.False(t, q.HasSynced(), "initial list queued")
				pop(t, q)
				assert.False(t, q.HasSynced(), "one of two processed")
				var during, answered bool
				_, err := q.Pop(func(deltafifo.Deltas, bool) error {
					during, answered = hasSyncedWithin(q, lockWait)
					return nil
				})
				require.NoError(t, err)
				require.True(t, answered, "HasSynced called inside process did not return: it must not wait for the queue's lock")
				assert.False(t, during, "while the last initial item is being processed")
				assert.True(t, q.HasSynced(), "after it")
			},
		},
		{
			Name: "HasSyncedCountsKeysNotDeltas",
			Want: "the initial list is counted in keys: a key listed twice is one Pop, and HasSynced turns true when the last listed key is processed",
			Doc:  docHasSynced,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Replace([]any{obj("a", "1"), obj("a", "2"), obj("b", "1")}, "2"))
				assert.Equal(t, []string{"Replaced/1", "Replaced/2"}, pop(t, q).summary())
				assert.False(t, q.HasSynced(), "b, listed, is not processed yet")
				pop(t, q)
				assert.True(t, q.HasSynced(), "both listed keys are processed; a count of deltas would still wait for one more")
			},
		},
		{
			Name: "HasSyncedAtOnceWithoutAnInitialList",
			Want: "an empty first Replace, or an Add before any Replace, leaves nothing to wait for: HasSynced is true at once",
			Doc:  docHasSynced,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Replace(nil, "1"))
				assert.True(t, q.HasSynced(), "empty list")
				q, _ = newQueue(t)
				require.NoError(t, q.Add(obj("a", "1")))
				assert.True(t, q.HasSynced(), "Add before any Replace")
			},
		},
		{
			Name: "OnlyTheFirstReplaceIsTheInitialList",
			Want: "Pop passes isInInitialList=true for keys of the first Replace only, not for Adds or later Replaces",
			Doc:  docHasSynced,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Replace([]any{obj("a", "1")}, "1"))
				assert.True(t, pop(t, q).initial, "first Replace")
				require.NoError(t, q.Add(obj("b", "2")))
				assert.False(t, pop(t, q).initial, "Add")
				require.NoError(t, q.Replace([]any{obj("c", "3")}, "3"))
				assert.False(t, pop(t, q).initial, "second Replace")
			},
		},
		{
			Name: "ResyncQueuesSyncForIdleKnownObjects",
			Want: "Resync queues a Sync delta with the stored object for every known key with nothing queued, and skips keys with queued deltas",
			Doc:  docResync,
			Test: func(t *testing.T) {
				idle := obj("idle", "1")
				q, _ := newQueue(t, idle, obj("busy", "1"))
				require.NoError(t, q.Update(obj("busy", "2")))
				require.NoError(t, q.Resync())
				got := popAll(t, q)
				assert.Equal(t, []string{"Updated/2"}, got["ns/busy"].summary())
				require.Equal(t, []string{"Sync/1"}, got["ns/idle"].summary())
				assert.Same(t, idle, got["ns/idle"].deltas[0].Object)
			},
		},
		{
			Name: "HasSyncedDoesNotWaitForTheLock",
			Want: "HasSynced called inside process (as an informer's handlers do) returns at once: it reads an atomic flag, never the queue's lock",
			Doc:  docHasSynced,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
				var answered bool
				_, err := q.Pop(func(deltafifo.Deltas, bool) error {
					_, answered = hasSyncedWithin(q, lockWait)
					return nil
				})
				require.NoError(t, err)
				assert.True(t, answered, "HasSynced, called inside process, was still waiting after %v: it takes the lock Pop holds", lockWait)
			},
		},
		{
			Name: "ReplaceIsAllOrNothing",
			Want: "a Replace whose list holds something that cannot be keyed returns the error and changes nothing: no delta, no tombstone, no initial list",
			Doc:  docReplace,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				assert.Error(t, q.Replace([]any{obj("a", "1"), "not an object", obj("b", "1")}, "1"))
				assert.Empty(t, q.ListKeys(), "the objects listed before the bad one were queued")
				assert.False(t, q.HasSynced(), "a failed Replace is not the initial list")

				q, _ = newQueue(t, obj("known", "1"))
				require.NoError(t, q.Add(obj("queued", "1")))
				assert.Error(t, q.Replace([]any{obj("listed", "2"), 42}, "2"))
				assert.Equal(t, []string{"ns/queued"}, q.ListKeys(), "no listed object, no tombstone for the known one")
				assert.Equal(t, []string{"Added/1"}, pop(t, q).summary())
			},
		},
		{
			Name: "TombstonesAreNeverNested",
			Want: "a tombstone always holds the object itself: a key whose newest delta is already a tombstone gets one holding that tombstone's object, never a tombstone in a tombstone",
			Doc:  docReplace,
			Test: func(t *testing.T) {
				stored := obj("gone", "1")
				q, _ := newQueue(t, stored)
				require.NoError(t, q.Add(obj("brief", "2")))
				// Two relists before the consumer pops: the second finds
				// both keys queued with a tombstone as their newest delta.
				require.NoError(t, q.Replace(nil, "3"))
				require.NoError(t, q.Replace(nil, "4"))
				got := popAll(t, q)
				for key, wantObj := range map[string]string{"ns/gone": "1", "ns/brief": "2"} {
					require.Contains(t, got, key)
					deltas := got[key].deltas
					last := deltas[len(deltas)-1]
					require.Equal(t, deltafifo.Deleted, last.Type, "%s: %v", key, got[key].summary())
					tomb, ok := last.Object.(deltafifo.DeletedFinalStateUnknown)
					require.True(t, ok, "%s: a tombstone, got %T", key, last.Object)
					inner, ok := tomb.Obj.(metav1.Object)
					require.True(t, ok, "%s: the tombstone holds %T, not the object", key, tomb.Obj)
					assert.Equal(t, wantObj, inner.GetResourceVersion(), key)
				}
				assert.Same(t, stored, got["ns/gone"].deltas[0].Object.(deltafifo.DeletedFinalStateUnknown).Obj)
			},
		},
		{
			Name: "PopBlocksUntilAnAdd",
			Want: "Pop on an empty queue blocks until something is added, then hands it over",
			Doc:  docPop,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					q, _ := newQueue(t)
					var popped atomic.Value
					done := grade.Go(t, func() {
						d, err := q.Pop(func(deltafifo.Deltas, bool) error { return nil })
						assert.NoError(t, err)
						popped.Store(d)
					})
					synctest.Wait()
					require.Nil(t, popped.Load(), "Pop returned from an empty queue")
					require.NoError(t, q.Add(obj("a", "1")))
					<-done
					d, _ := popped.Load().(deltafifo.Deltas)
					require.Len(t, d, 1)
					q.Close()
				})
			},
		},
		{
			Name: "CloseWakesAWaitingPop",
			Want: "Close wakes a Pop waiting on an empty queue, which returns deltafifo.ErrFIFOClosed",
			Doc:  docPop,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					q, _ := newQueue(t)
					var err atomic.Value
					done := grade.Go(t, func() {
						_, e := q.Pop(func(deltafifo.Deltas, bool) error { return nil })
						err.Store(e)
					})
					synctest.Wait()
					q.Close()
					<-done
					e, _ := err.Load().(error)
					assert.True(t, errors.Is(e, deltafifo.ErrFIFOClosed), "Pop returned %v", e)
				})
			},
		},
		{
			Name: "PopHandsOutWhatIsQueuedAfterClose",
			Want: "after Close, Pop still hands out every queued key, in order; only a closed and empty queue returns deltafifo.ErrFIFOClosed, at once",
			Doc:  docPop,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					q, _ := newQueue(t)
					require.NoError(t, q.Add(obj("a", "1")))
					require.NoError(t, q.Add(obj("b", "1")))
					q.Close()
					assert.Equal(t, "ns/a", pop(t, q).key)
					assert.Equal(t, "ns/b", pop(t, q).key)
					var err atomic.Value
					done := grade.Go(t, func() {
						_, e := q.Pop(func(deltafifo.Deltas, bool) error { return nil })
						err.Store(e)
					})
					synctest.Wait()
					select {
					case <-done:
					default:
						t.Fatal("Pop on a closed, empty queue blocked")
					}
					e, _ := err.Load().(error)
					assert.True(t, errors.Is(e, deltafifo.ErrFIFOClosed), "Pop returned %v", e)
				})
			},
		},
		{
			Name: "ProcessRunsWithTheQueueLocked",
			Want: "process runs with the queue locked: an Add from another goroutine while process runs waits until process has returned",
			Doc:  docPop,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Add(obj("a", "1")))
				var added <-chan struct{}
				var addedDuring bool
				_, err := q.Pop(func(deltafifo.Deltas, bool) error {
					added = grade.Go(t, func() { assert.NoError(t, q.Add(obj("b", "1"))) })
					// Nothing to wait for but time: a correct queue holds the
					// Add for as long as process runs.
					select {
					case <-added:
						addedDuring = true
					case <-time.After(lockWait / 10):
					}
					return nil
				})
				require.NoError(t, err)
				select {
				case <-added:
				case <-time.After(lockWait):
					t.Fatalf("the Add was still blocked %v after process returned", lockWait)
				}
				assert.False(t, addedDuring, "Add returned while process was running: Pop released the lock before calling process")
				assert.Equal(t, []string{"ns/b"}, q.ListKeys())
			},
		},
		{
			Name: "SafeForAProducerAndAConsumer",
			Want: "a producer (Add, Update, Delete, Replace, Resync), a consumer (Pop) and a HasSynced poller on three goroutines: no data race, and each key's deltas arrive in order",
			Doc:  docDesign,
			Test: func(t *testing.T) { concurrentUse(t, impl) },
		},
		{
			Name: "ProcessErrorIsReturned",
			Want: "Pop returns the Deltas and whatever the process function returned, and the key is gone either way",
			Doc:  docPop,
			Test: func(t *testing.T) {
				q, _ := newQueue(t)
				require.NoError(t, q.Add(obj("a", "1")))
				boom := errors.New("boom")
				d, err := q.Pop(func(deltafifo.Deltas, bool) error { return boom })
				assert.ErrorIs(t, err, boom)
				assert.Len(t, d, 1)
				assert.Empty(t, q.ListKeys())
			},
		},
		modelBehaviour(impl),
	}
}

// obj returns a ConfigMap's metadata in namespace "ns".
func obj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv},
	}
}

// popped is what one Pop handed over.
type popped struct {
	key     string
	deltas  deltafifo.Deltas
	initial bool
}

// summary is each delta as Type/resourceVersion.
func (p popped) summary() []string {
	var s []string
	for _, d := range p.deltas {
		o := d.Object
		if tomb, ok := o.(deltafifo.DeletedFinalStateUnknown); ok {
			o = tomb.Obj
		}
		rv := ""
		if m, ok := o.(metav1.Object); ok {
			rv = m.GetResourceVersion()
		}
		s = append(s, string(d.Type)+"/"+rv)
	}
	return s
}

// pop pops one key, which must be queued.
func pop(t *testing.T, q Queue) popped {
	t.Helper()
	require.NotEmpty(t, q.ListKeys(), "nothing queued to pop")
	var p popped
	d, err := q.Pop(func(d deltafifo.Deltas, initial bool) error {
		p.deltas, p.initial = d, initial
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, d, "Pop handed over no deltas")
	assert.Equal(t, p.deltas, d, "Pop returns what it passed to process")
	key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(d[len(d)-1].Object)
	require.NoError(t, err)
	p.key = key
	return p
}

// popAll pops every queued key.
func popAll(t *testing.T, q Queue) map[string]popped {
	t.Helper()
	all := map[string]popped{}
	for len(q.ListKeys()) > 0 {
		p := pop(t, q)
		all[p.key] = p
	}
	return all
}
