package deltafifo_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/deltafifo"
)

// TestPopHandsAllDeltasOfHeadKeyWithIsInInitialList: Pop gives the consumer
// every delta of the key at the head of the line, and says whether the key
// came from the initial list.
// Diagram: step 3. client-go: DeltaFIFO.Pop
func TestPopHandsAllDeltasOfHeadKeyWithIsInInitialList(t *testing.T) {
	f := deltafifo.New(deltafifo.Options{})
	checked(t, f, f.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
	checked(t, f, f.Update(obj("a", "2")))
	checked(t, f, f.Add(obj("c", "2")))

	t.Logf("initial list [a@1 b@1], then Update a@2, Add c@2: queued keys %v", f.ListKeys())
	got := popAll(t, f, nil)

	assert.Equal(t, []popped{
		{Deltas: []string{"Replaced a@1", "Updated a@2"}, Initial: true},
		{Deltas: []string{"Replaced b@1"}, Initial: true},
		{Deltas: []string{"Added c@2"}, Initial: false},
	}, got)
}

// TestPopRunsProcessUnderTheLock: while process runs, the queue is locked,
// so the consumer can update its store without a Replace, Resync or Delete
// seeing the update half done.
// Diagram: step 3. client-go: DeltaFIFO.Pop
func TestPopRunsProcessUnderTheLock(t *testing.T) {
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			checked(t, f, f.Add(obj("a", "1")))
			var lockedDuringProcess bool

			_, err := f.Pop(func(deltafifo.Deltas, bool) error {
				lockedDuringProcess = deltafifo.IsLocked(f)
				return nil
			})

			checked(t, f, err)
			t.Logf("%s: the queue's lock was held while process ran: %v; and after Pop returned: %v", q.name, lockedDuringProcess, deltafifo.IsLocked(f))
			assert.True(t, lockedDuringProcess)
			assert.False(t, deltafifo.IsLocked(f), "the lock is released when Pop returns")
		})
	}
}

// TestPopReturnsProcessErrorAndDoesNotRequeue: the consumer owns what it
// popped; a failed process does not put it back.
// Diagram: step 3. client-go: DeltaFIFO.Pop (ErrRequeue removed in v0.33)
func TestPopReturnsProcessErrorAndDoesNotRequeue(t *testing.T) {
	failed := errors.New("handler failed")
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			checked(t, f, f.Add(obj("a", "1")))

			ds, err := f.Pop(func(deltafifo.Deltas, bool) error { return failed })
			t.Logf("%s: process fails; Pop returns %v with %v; queued keys afterwards: %v (not requeued)", q.name, err, showAll(ds), f.ListKeys())

			assert.ErrorIs(t, err, failed)
			assert.Equal(t, []string{"Added a@1"}, showAll(ds))
			assert.Empty(t, f.ListKeys())
			require.NoError(t, deltafifo.CheckInvariants(f))
		})
	}
}

// TestPopWithNilProcessIsAnError: misuse gets an error, not a panic, and
// nothing is lost.
// Diagram: step 3. client-go: DeltaFIFO.Pop
func TestPopWithNilProcessIsAnError(t *testing.T) {
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			checked(t, f, f.Add(obj("a", "1")))

			_, err := f.Pop(nil)

			assert.ErrorContains(t, err, "deltafifo: Pop needs a process function")
			assert.Equal(t, []string{"default/a"}, f.ListKeys())
		})
	}
}

// TestCloseUnblocksPopWithErrFIFOClosed: a consumer waiting on an empty
// queue is woken by Close and told the queue is closed.
// Diagram: step 3. client-go: DeltaFIFO.Close, DeltaFIFO.Pop
func TestCloseUnblocksPopWithErrFIFOClosed(t *testing.T) {
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := q.new(deltafifo.Options{})
				result := make(chan error, 1)
				go func() {
					_, err := f.Pop(func(deltafifo.Deltas, bool) error { return nil })
					result <- err
				}()
				synctest.Wait()
				require.Empty(t, result, "Pop must wait while the queue is empty")

				f.Close()
				synctest.Wait()

				assert.True(t, f.IsClosed())
				err := <-result
				t.Logf("%s: Pop waits on an empty queue; Close: Pop returns %v", q.name, err)
				assert.ErrorIs(t, err, deltafifo.ErrFIFOClosed)
			})
		})
	}
}

// TestCloseLetsPopDrainWhatIsQueued: closing does not throw queued work away;
// Pop returns ErrFIFOClosed only once the queue is empty.
// Diagram: step 3. client-go: DeltaFIFO.Pop
func TestCloseLetsPopDrainWhatIsQueued(t *testing.T) {
	for _, q := range everyQueue {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			checked(t, f, f.Add(obj("a", "1")))

			f.Close()
			f.Close()
			ds, err1 := f.Pop(func(deltafifo.Deltas, bool) error { return nil })
			_, err2 := f.Pop(func(deltafifo.Deltas, bool) error { return nil })

			require.NoError(t, err1)
			t.Logf("%s: a queued, then Close (twice): the first Pop hands out %v, the second returns %v", q.name, showAll(ds), err2)
			assert.Equal(t, []string{"Added a@1"}, showAll(ds))
			assert.ErrorIs(t, err2, deltafifo.ErrFIFOClosed)
		})
	}
}

// TestHasSyncedOnlyAfterLastInitialItemIsProcessed: HasSynced turns true
// only when the process function of the last initial item has returned.
// client-go's DeltaFIFO counts the item when it is taken, so its synced
// channel closes while that item is still being processed; here it does not.
// Diagram: step 3. client-go: DeltaFIFO.HasSynced
func TestHasSyncedOnlyAfterLastInitialItemIsProcessed(t *testing.T) {
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			assert.False(t, f.HasSynced(), "nothing listed yet")
			checked(t, f, f.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
			assert.False(t, f.HasSynced())
			var duringProcess []bool
			process := func(_ deltafifo.Deltas, initial bool) error {
				require.True(t, initial)
				duringProcess = append(duringProcess, f.HasSynced())
				return nil
			}

			_, err := f.Pop(process)
			checked(t, f, err)
			assert.False(t, f.HasSynced(), "one initial item still waits")
			_, err = f.Pop(process)
			checked(t, f, err)

			assert.Equal(t, []bool{false, false}, duringProcess, "not synced while the last item is processed")
			t.Logf("%s: initial list [a b]: HasSynced while each was processed: %v; after the last Pop returned: %v", q.name, duringProcess, f.HasSynced())
			assert.True(t, f.HasSynced())
		})
	}
}

// TestHasSyncedAtOnceWithoutAnInitialList: an empty first list, or an Add
// before any Replace, leaves nothing to wait for.
// Diagram: step 3. client-go: DeltaFIFO.HasSynced
func TestHasSyncedAtOnceWithoutAnInitialList(t *testing.T) {
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			empty := q.new(deltafifo.Options{})
			addFirst := q.new(deltafifo.Options{})

			checked(t, empty, empty.Replace(nil, "1"))
			checked(t, addFirst, addFirst.Add(obj("a", "1")))
			checked(t, addFirst, addFirst.Replace([]any{obj("b", "1")}, "1"))

			assert.True(t, empty.HasSynced())
			assert.True(t, addFirst.HasSynced())
			t.Logf("%s: HasSynced after an empty initial list: %v; after an Add before the first Replace: %v", q.name, empty.HasSynced(), addFirst.HasSynced())
			for _, p := range popAll(t, addFirst, nil) {
				assert.False(t, p.Initial, "nothing is in an initial list: %v", p)
			}
		})
	}
}

// TestLaterReplaceIsNotAnInitialList: only the first Replace counts; a relist
// after sync delivers its items with isInInitialList false.
// Diagram: step 3. client-go: DeltaFIFO.Replace, DeltaFIFO.Pop
func TestLaterReplaceIsNotAnInitialList(t *testing.T) {
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			f := q.new(deltafifo.Options{})
			checked(t, f, f.Replace([]any{obj("a", "1")}, "1"))
			popAll(t, f, nil)

			t.Logf("%s: the initial list [a@1] was popped; a second Replace lists a@2", q.name)
			checked(t, f, f.Replace([]any{obj("a", "2")}, "2"))

			assert.True(t, f.HasSynced())
			assert.Equal(t, []popped{{Deltas: []string{"Replaced a@2"}}}, popAll(t, f, nil))
		})
	}
}

// TestSlowProcessWithLongQueueIsLogged: a process function that holds the
// lock for more than 100ms while more than ten keys wait is reported, since
// it blocks the producer.
// Diagram: step 3. client-go: DeltaFIFO.Pop
func TestSlowProcessWithLongQueueIsLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		f := deltafifo.New(deltafifo.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"} {
			checked(t, f, f.Add(obj(name, "1")))
		}
		slow := func(deltafifo.Deltas, bool) error { time.Sleep(150 * time.Millisecond); return nil }
		quick := func(deltafifo.Deltas, bool) error { time.Sleep(50 * time.Millisecond); return nil }

		_, err := f.Pop(quick) // 12 keys wait, but a is quick
		require.NoError(t, err)
		require.Empty(t, logs.String())
		t.Log("pop a (50ms) with 12 keys waiting: nothing logged")
		_, err = f.Pop(slow) // 11 keys wait while b is slow

		require.NoError(t, err)
		assert.Contains(t, logs.String(), `msg="deltafifo: slow event handlers blocking the queue" key=default/b depth=11 took=150ms`)
		t.Logf("pop b (150ms) with 11 keys waiting: %s", strings.TrimSpace(logs.String()))
		logs.Reset()
		for range 11 {
			_, err = f.Pop(slow) // 10 keys or fewer wait
			require.NoError(t, err)
		}
		assert.Empty(t, logs.String())
		t.Log("pops with 10 keys or fewer waiting: nothing logged, however slow")
	})
}
