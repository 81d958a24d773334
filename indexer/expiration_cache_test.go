package indexer_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/indexer"
)

// policyFunc adapts a function to an ExpirationPolicy.
type policyFunc func(*indexer.TimestampedEntry) bool

func (f policyFunc) IsExpired(e *indexer.TimestampedEntry) bool { return f(e) }

// expiryRecorder collects the keys an expiration store reports expired.
type expiryRecorder struct {
	mu   sync.Mutex
	keys []string
}

func (r *expiryRecorder) expired(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, key)
}

func (r *expiryRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.keys...)
}

// TestTTLStoreForgetsAnObjectOnceOlderThanTTL walks a TTL store through the
// life of one entry in a synctest bubble: it is there up to and at exactly
// its TTL, and gone the instant after, from every read.
// Diagram: none (a store beside the pipeline). client-go: NewTTLStore, TTLPolicy.IsExpired.
func TestTTLStoreForgetsAnObjectOnceOlderThanTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := indexer.NewTTLStore(indexer.MetaNamespaceKeyFunc, time.Minute)
		web := newObj("shop", "web")

		require.NoError(t, store.Add(web))
		time.Sleep(time.Minute)
		_, exists, err := store.GetByKey("shop/web")
		require.NoError(t, err)
		t.Logf("1. a 1m TTL store, exactly 1m after the Add: cached %v", exists)
		assert.True(t, exists, "exactly TTL old: not expired")
		assert.Equal(t, []string{"shop/web"}, store.ListKeys())
		requireConsistent(t, store)

		time.Sleep(time.Nanosecond)
		_, exists, err = store.Get(web)
		require.NoError(t, err)
		t.Logf("2. 1ns later: cached %v; List %v", exists, store.List())
		assert.False(t, exists, "older than TTL: expired")
		assert.Empty(t, store.List())
		assert.Empty(t, store.ListKeys())
		requireConsistent(t, store)
	})
}

// TestTTLStoreWritingAgainStartsTheTimeOver: Update stamps the entry anew,
// so an object written every 40s under a 1m TTL never expires; Replace
// stamps every object with one time.
// Diagram: none. client-go: ExpirationCache.Update ("effectively refreshes the timestamp"), Replace.
func TestTTLStoreWritingAgainStartsTheTimeOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := indexer.NewTTLStore(nil, time.Minute)

		require.NoError(t, store.Add(newObj("shop", "web", "v=1")))
		time.Sleep(40 * time.Second)
		require.NoError(t, store.Update(newObj("shop", "web", "v=2")))
		time.Sleep(40 * time.Second)
		got, exists, err := store.GetByKey("shop/web")
		require.NoError(t, err)
		require.True(t, exists, "80s after the Add, 40s after the Update")
		assert.Equal(t, "2", labelsOf(got)["v"])

		require.NoError(t, store.Replace([]any{newObj("shop", "web"), newObj("shop", "db")}, "9"))
		time.Sleep(time.Minute + time.Nanosecond)
		assert.Empty(t, store.ListKeys(), "both replaced objects expire together")
		requireConsistent(t, store)
	})
}

// TestExpirationStoreReportsEachExpiryOnceToTheExpiredFunc: the read that
// removes an expired entry reports its key; a second read finds nothing to
// report, and a Delete or Replace is not an expiry.
// Diagram: none. client-go: NewFakeExpirationStore's deletedKeys channel.
func TestExpirationStoreReportsEachExpiryOnceToTheExpiredFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &expiryRecorder{}
		store := indexer.NewTTLStore(nil, time.Minute, indexer.WithExpiredFunc(rec.expired))
		require.NoError(t, store.Add(newObj("shop", "web")))
		require.NoError(t, store.Add(newObj("shop", "db")))
		require.NoError(t, store.Add(newObj("shop", "cache")))
		require.NoError(t, store.Delete(newObj("shop", "cache")))

		time.Sleep(2 * time.Minute)
		_, exists, _ := store.GetByKey("shop/web")
		require.False(t, exists)
		_, exists, _ = store.GetByKey("shop/web")
		require.False(t, exists)
		assert.Empty(t, store.List())
		require.NoError(t, store.Replace([]any{newObj("blog", "web")}, "3"))

		assert.Equal(t, []string{"shop/web", "shop/db"}, rec.all())
		requireConsistent(t, store)
	})
}

// TestExpirationStoreKeepsAnObjectWrittenWhileAReadDecidedItsOldEntryExpired
// pins the compare-and-delete: a read decides that the entry it found has
// expired; before it removes it, a writer stores the object anew. The read
// reports the object gone (what it found had expired), but the new entry
// stays, and is not reported as expired.
// Diagram: none. client-go: ExpirationCache.getOrExpire (which holds a lock across the decision for the same reason).
func TestExpirationStoreKeepsAnObjectWrittenWhileAReadDecidedItsOldEntryExpired(t *testing.T) {
	deciding, decide := make(chan struct{}), make(chan struct{})
	policy := policyFunc(func(e *indexer.TimestampedEntry) bool {
		if labelsOf(e.Obj)["v"] != "old" {
			return false
		}
		close(deciding)
		<-decide
		return true
	})
	rec := &expiryRecorder{}
	store := indexer.NewExpirationStore(nil, policy, indexer.WithExpiredFunc(rec.expired))
	require.NoError(t, store.Add(newObj("shop", "web", "v=old")))

	read := make(chan bool)
	go func() {
		_, exists, _ := store.GetByKey("shop/web")
		read <- exists
	}()
	<-deciding
	require.NoError(t, store.Update(newObj("shop", "web", "v=new")))
	close(decide)

	assert.False(t, <-read, "the read that decided on the old entry reports it gone")
	got, exists, err := store.GetByKey("shop/web")
	require.NoError(t, err)
	require.True(t, exists, "the entry written meanwhile stays")
	assert.Equal(t, "new", labelsOf(got)["v"])
	assert.Empty(t, rec.all())
	requireConsistent(t, store)
}

// TestTTLPolicyExpiresOnlyEntriesOlderThanTTL: an entry exactly TTL old has
// not expired, one a nanosecond older has; a TTL of zero or less expires
// nothing; a nil Clock is the system clock (synctest's, here).
// Diagram: none. client-go: TTLPolicy.IsExpired.
func TestTTLPolicyExpiresOnlyEntriesOlderThanTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		for _, tc := range []struct {
			ttl     time.Duration
			age     time.Duration
			expired bool
		}{
			{ttl: 30 * time.Second, age: 0, expired: false},
			{ttl: 30 * time.Second, age: 30 * time.Second, expired: false},
			{ttl: 30 * time.Second, age: 30*time.Second + time.Nanosecond, expired: true},
			{ttl: 0, age: time.Hour, expired: false},
			{ttl: -time.Second, age: time.Hour, expired: false},
		} {
			entry := &indexer.TimestampedEntry{Obj: newObj("shop", "web"), Timestamp: now.Add(-tc.age), Key: "shop/web"}

			withNil := (&indexer.TTLPolicy{TTL: tc.ttl}).IsExpired(entry)
			withClock := (&indexer.TTLPolicy{TTL: tc.ttl, Clock: fixedClock(now)}).IsExpired(entry)

			assert.Equal(t, tc.expired, withNil, "ttl %v, age %v, system clock", tc.ttl, tc.age)
			assert.Equal(t, tc.expired, withClock, "ttl %v, age %v, given clock", tc.ttl, tc.age)
		}
	})
}

// fixedClock is a Clock that always says the same time.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// steppedClock is a Clock a test moves by hand.
type steppedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppedClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestTTLStoreMeasuresWithTheGivenClock: WithClock stamps the entries and,
// for a TTL store, measures their age, so a caller's clock (a fake one of
// k8s.io/utils/clock, say) drives expiry alone.
// Diagram: none. client-go: NewFakeExpirationStore's cacheClock, TTLPolicy.Clock.
func TestTTLStoreMeasuresWithTheGivenClock(t *testing.T) {
	clock := &steppedClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := indexer.NewTTLStore(nil, time.Minute, indexer.WithClock(clock))
	require.NoError(t, store.Add(newObj("shop", "web")))

	clock.step(time.Minute)
	assert.Equal(t, []string{"shop/web"}, store.ListKeys())
	clock.step(time.Second)
	assert.Empty(t, store.ListKeys())
}

// TestExpirationStoreRejectsBadInputAndChangesNothing: a key that cannot be
// computed is a KeyError, a nil object an error, a Replace with one bad
// object changes nothing; a Transaction skips its bad writes and stamps the
// good ones; a nil policy expires nothing.
// Diagram: none. client-go: ExpirationCache.Add, Replace (KeyError).
func TestExpirationStoreRejectsBadInputAndChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := indexer.NewExpirationStore(nil, nil)
		require.NoError(t, store.Add(newObj("shop", "web")))

		var keyErr indexer.KeyError
		assert.ErrorAs(t, store.Add("not an object"), &keyErr)
		assert.Error(t, store.Add(nil))
		assert.ErrorAs(t, store.Replace([]any{newObj("blog", "web"), 42}, "5"), &keyErr)
		assert.Equal(t, []string{"shop/web"}, store.ListKeys(), "a failed Replace changes nothing")

		err := store.Transaction(
			indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "db")},
			indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: 42},
			indexer.Transaction{Type: indexer.TransactionTypeDelete, Object: newObj("shop", "web")},
			indexer.Transaction{Type: "Upsert", Object: newObj("shop", "cache")},
		)
		var txnErr *indexer.TransactionError
		require.ErrorAs(t, err, &txnErr)
		assert.Equal(t, []int{0, 2}, txnErr.SuccessfulIndices)

		time.Sleep(24 * time.Hour)
		got, exists, err := store.GetByKey("shop/db")
		require.NoError(t, err)
		require.True(t, exists, "a nil policy expires nothing")
		assert.Equal(t, newObj("shop", "db"), got, "the store returns the object, not its entry")
		assert.Equal(t, []string{"shop/db"}, store.ListKeys())
		requireConsistent(t, store)
	})
}

// TestTTLStoreTransactionStampsItsWrites: writes applied by a Transaction
// expire like those of Add.
// Diagram: none. client-go: none (its ExpirationCache has no Transaction).
func TestTTLStoreTransactionStampsItsWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := indexer.NewTTLStore(nil, time.Minute)

		require.NoError(t, store.Transaction(
			indexer.Transaction{Type: indexer.TransactionTypeAdd, Object: newObj("shop", "web")},
			indexer.Transaction{Type: indexer.TransactionTypeUpdate, Object: newObj("shop", "db")},
		))
		requireConsistent(t, store)
		assert.Len(t, store.List(), 2)

		time.Sleep(time.Minute + time.Nanosecond)
		assert.Empty(t, store.List())
	})
}

// TestExpirationStoreConcurrentReadersAndWritersKeepItConsistent stores 40
// objects whose first entries expire, then runs readers that all find those
// entries expired at once, alongside writers that overwrite or delete half of
// the objects, under the race detector. No read returns an expired object;
// each expired entry is reported once, by the one read that removed it: the
// 20 objects no writer touched exactly once, the others at most once.
// Diagram: none. client-go: ExpirationCache's expirationLock.
func TestExpirationStoreConcurrentReadersAndWritersKeepItConsistent(t *testing.T) {
	rec := &expiryRecorder{}
	policy := policyFunc(func(e *indexer.TimestampedEntry) bool {
		return labelsOf(e.Obj)["gen"] == "0" // each object's first entry expires
	})
	store := indexer.NewExpirationStore(nil, policy, indexer.WithExpiredFunc(rec.expired))
	name := func(i int) string { return fmt.Sprintf("obj-%02d", i) }
	for i := range 40 {
		require.NoError(t, store.Add(newObj("shop", name(i), "gen=0")))
	}

	var wg sync.WaitGroup
	for w := range 2 { // objects 0-19: w=0 overwrites the even ones, w=1 deletes the odd ones
		wg.Go(func() {
			for i := w; i < 20; i += 2 {
				if w == 0 {
					assert.NoError(t, store.Update(newObj("shop", name(i), "gen=1")))
				} else {
					assert.NoError(t, store.Delete(newObj("shop", name(i))))
				}
			}
		})
	}
	for r := range 8 {
		wg.Go(func() {
			for i := range 40 {
				if r%2 == 0 {
					for _, obj := range store.List() {
						assert.Equal(t, "1", labelsOf(obj)["gen"], "List returned an expired object")
					}
				}
				if got, exists, _ := store.GetByKey("shop/" + name((i+r*5)%40)); exists {
					assert.Equal(t, "1", labelsOf(got)["gen"], "GetByKey returned an expired object")
				}
			}
		})
	}
	wg.Wait()
	assert.Len(t, store.List(), 10, "the ten overwritten objects")

	requireConsistent(t, store)
	reported := map[string]int{}
	for _, key := range rec.all() {
		reported[key]++
	}
	for i := range 40 {
		key := "shop/" + name(i)
		if i < 20 {
			assert.LessOrEqual(t, reported[key], 1, "%s reported more than once", key)
		} else {
			assert.Equal(t, 1, reported[key], "%s: its one expired entry reported once", key)
		}
	}
}
