package deltafifosuite

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
)

// lockWait is how long, in real time, a call that must not wait for the
// queue's lock may take before the suite calls it blocked. A correct queue
// answers in microseconds; the margin is for a loaded machine.
const lockWait = 2 * time.Second

// hasSyncedWithin calls q.HasSynced on another goroutine and returns its
// answer, or answered=false if it did not return within d. Called inside
// process, it keeps a HasSynced that waits for the lock Pop holds from
// deadlocking the grader: once process returns, the lock is free and the
// stuck call ends.
func hasSyncedWithin(q Queue, d time.Duration) (synced, answered bool) {
	result := make(chan bool, 1)
	go func() { result <- q.HasSynced() }()
	select {
	case synced = <-result:
		return synced, true
	case <-time.After(d):
		return false, false
	}
}

// concurrentUse drives a queue as an informer does, outside any synctest
// bubble so that goroutines really run at the same time and -race sees
// every unguarded field: a producer adds, updates, deletes, relists and
// resyncs; a consumer pops and applies each key's deltas to the store the
// queue reads through KnownObjects; a third goroutine polls HasSynced and
// ListKeys. Every delta carries a resourceVersion from one counter, so a
// key's deltas must arrive in increasing order (a relist may repeat the
// newest).
func concurrentUse(t *testing.T, impl Impl) {
	const objects, rounds = 20, 300
	store := indexer.NewStore(deltafifo.DeletionHandlingMetaNamespaceKeyFunc)
	q := impl.New(deltafifo.DeletionHandlingMetaNamespaceKeyFunc, store)

	// Two pollers: HasSynced alone, so that nothing it does takes a lock
	// that would order its reads after Pop's writes and hide a race from
	// -race; and ListKeys, which must lock.
	stop := make(chan struct{})
	poll := func(f func()) <-chan struct{} {
		return grade.Go(t, func() {
			for {
				select {
				case <-stop:
					return
				default:
					f()
				}
			}
		})
	}
	syncedPoller := poll(func() { q.HasSynced() })
	keysPoller := poll(func() { q.ListKeys() })

	producer := grade.Go(t, func() {
		rv := 0
		next := func(name string) *metav1.PartialObjectMetadata {
			rv++
			return obj(name, strconv.Itoa(rv))
		}
		live := map[string]*metav1.PartialObjectMetadata{}
		list := func() []any {
			var l []any
			for _, o := range live {
				l = append(l, o)
			}
			return l
		}
		for i := range objects {
			name := "o" + strconv.Itoa(i)
			live[name] = next(name)
		}
		assert.NoError(t, q.Replace(list(), strconv.Itoa(rv)))
		for i := range rounds {
			name := "o" + strconv.Itoa(i%objects)
			switch {
			case i%50 == 49:
				assert.NoError(t, q.Replace(list(), strconv.Itoa(rv)))
			case i%25 == 24:
				assert.NoError(t, q.Resync())
			case i%7 == 6 && live[name] != nil:
				rv++
				assert.NoError(t, q.Delete(live[name]))
				delete(live, name)
			case live[name] == nil:
				live[name] = next(name)
				assert.NoError(t, q.Add(live[name]))
			default:
				live[name] = next(name)
				assert.NoError(t, q.Update(live[name]))
			}
		}
		assert.NoError(t, q.Add(obj("end", "0")))
	})

	var problems []string
	newest := map[string]int{}
	consumer := grade.Go(t, func() {
		for {
			var end bool
			_, err := q.Pop(func(d deltafifo.Deltas, initial bool) error {
				if initial {
					// Widen the window in which the initial list is popped, so that
					// the HasSynced poller surely runs while Pop updates what
					// HasSynced reads, even on a loaded machine: -race reports
					// only accesses that really overlap.
					time.Sleep(time.Millisecond)
				}
				for _, delta := range d {
					o := delta.Object
					if tomb, ok := o.(deltafifo.DeletedFinalStateUnknown); ok {
						o = tomb.Obj
					}
					m, ok := o.(metav1.Object)
					if !ok {
						problems = append(problems, fmt.Sprintf("a %s delta holds %T", delta.Type, delta.Object))
						continue
					}
					if m.GetName() == "end" {
						end = true
						continue
					}
					key := "ns/" + m.GetName()
					rv, _ := strconv.Atoi(m.GetResourceVersion())
					if delta.Type != deltafifo.Sync && rv < newest[key] {
						problems = append(problems, fmt.Sprintf("%s: %s/%d after %d", key, delta.Type, rv, newest[key]))
					}
					newest[key] = max(newest[key], rv)
					if delta.Type == deltafifo.Deleted {
						_ = store.Delete(delta.Object)
					} else {
						_ = store.Update(o)
					}
				}
				return nil
			})
			if err != nil || end {
				return
			}
		}
	})

	deadline := time.After(4 * lockWait)
	for _, step := range []struct {
		name string
		done <-chan struct{}
	}{{"the producer", producer}, {"the consumer", consumer}} {
		select {
		case <-step.done:
		case <-deadline:
			q.Close()
			close(stop)
			t.Fatalf("%s did not finish: a lock never released, or a Pop nobody woke", step.name)
		}
	}
	close(stop)
	<-syncedPoller
	<-keysPoller
	q.Close()
	require.True(t, q.HasSynced(), "every key of the first Replace was processed")
	assert.Empty(t, problems, "deltas out of order")
}
