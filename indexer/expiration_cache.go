package indexer

import "time"

// Clock tells the time. The system clock is used unless one is given; tests
// of this package run in testing/synctest bubbles, whose time.Now is already
// fake, and a caller may hand in any clock with a Now method (the clocks of
// k8s.io/utils/clock, real and fake, satisfy it).
//
// client-go: k8s.io/utils/clock.Clock (only Now is needed here).
type Clock interface {
	Now() time.Time
}

// systemClock is the Clock used when none is given.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// TimestampedEntry is what an expiration store keeps for each object: the
// object, when it was written, and its key. An [ExpirationPolicy] reads it to
// decide whether the object has expired.
//
// The timestamp comes from the store's Clock on this machine. Never put a
// time from the API server into it: two machines' clocks do not agree.
//
// client-go: tools/cache.TimestampedEntry (whose key is unexported).
type TimestampedEntry struct {
	Obj       any
	Timestamp time.Time
	Key       string
}

// ExpirationPolicy decides when an entry of an expiration store has expired.
// IsExpired is called on every read of the entry, outside the store's lock,
// possibly from several goroutines at once; it must not call the store.
//
// client-go: tools/cache.ExpirationPolicy.
type ExpirationPolicy interface {
	IsExpired(entry *TimestampedEntry) bool
}

// TTLPolicy expires an entry once it is older than TTL: written more than TTL
// ago by Clock's reckoning. An entry exactly TTL old has not expired. A TTL of
// zero or less expires nothing. A nil Clock is the system clock.
//
// client-go: tools/cache.TTLPolicy.
type TTLPolicy struct {
	TTL   time.Duration
	Clock Clock
}

// IsExpired reports whether entry was written more than p.TTL ago.
func (p *TTLPolicy) IsExpired(entry *TimestampedEntry) bool {
	return p.TTL > 0 && clockOrSystem(p.Clock).Now().Sub(entry.Timestamp) > p.TTL
}

func clockOrSystem(c Clock) Clock {
	if c == nil {
		return systemClock{}
	}
	return c
}

// ExpirationOption configures the stores NewTTLStore and NewExpirationStore
// return.
type ExpirationOption func(*expirationCache)

// WithClock stamps entries with clock instead of the system clock. For
// NewTTLStore it is also the clock the TTL is measured with; a policy given
// to NewExpirationStore keeps its own, so give it the same one.
func WithClock(clock Clock) ExpirationOption {
	return func(c *expirationCache) { c.clock = clockOrSystem(clock) }
}

// WithExpiredFunc calls expired with the key of each entry the store drops
// because it expired, once per entry, on the goroutine of the read that
// found it, after the store's lock is released. An entry removed by Delete
// or Replace is not reported.
func WithExpiredFunc(expired func(key string)) ExpirationOption {
	return func(c *expirationCache) { c.expired = expired }
}

// NewTTLStore returns a Store whose entries expire ttl after they were last
// written: a [TTLPolicy] measured with the store's clock ([WithClock], or the
// system clock). keyFunc nil means [MetaNamespaceKeyFunc].
//
// client-go: tools/cache.NewTTLStore.
func NewTTLStore(keyFunc KeyFunc, ttl time.Duration, opts ...ExpirationOption) Store {
	c := newExpirationCache(keyFunc, nil, opts)
	c.policy = &TTLPolicy{TTL: ttl, Clock: c.clock}
	return c
}

// NewExpirationStore returns a Store that forgets an object once policy says
// its entry has expired. It is a cache that cleans itself up, for two things
// a controller author meets:
//
//   - expectations that must age out: a controller that has just created
//     three Pods records "expect three adds" and waits for the informer to
//     report them before it acts on that owner again. If an add never comes
//     (the create failed on the server, a watch event was lost to a relist),
//     the expectation must not block the owner for ever; kube-controller-manager's
//     ControllerExpectations keep theirs in a TTL store for that reason.
//   - a cache of lookups: answers that are expensive to get (from another
//     API, a cloud provider) and good for a while.
//
// It is not the informer's cache: the informer's Indexer holds what the API
// server said until the server says otherwise, and never expires anything.
//
// Expiry is lazy: nothing runs in the background. Every read (Get, GetByKey,
// List, ListKeys) asks policy about the entries it meets and removes the
// expired ones, so an expired object is never returned, and one nobody reads
// stays in memory until a List or ListKeys. Add and Update stamp the entry
// with the current time, so writing an object again starts its time over;
// Replace stamps every object with one time. A nil policy expires nothing.
// keyFunc nil means [MetaNamespaceKeyFunc].
//
// It is safe for concurrent use. A read decides on an entry and removes it
// only if the store still holds that same entry, so an expiry never removes
// an object written again meanwhile.
//
// client-go: tools/cache.NewExpirationStore.
func NewExpirationStore(keyFunc KeyFunc, policy ExpirationPolicy, opts ...ExpirationOption) Store {
	c := newExpirationCache(keyFunc, policy, opts)
	if c.policy == nil {
		c.policy = &TTLPolicy{} // a TTL of zero expires nothing
	}
	return c
}

// expirationCache keeps a *TimestampedEntry per object in a cache keyed by
// the entry's Key.
//
// Invariants (checkInvariants): every stored value is a *TimestampedEntry
// with a non-nil Obj, stored under its Key, which is keyFunc(Obj).
type expirationCache struct {
	entries *cache  // *TimestampedEntry values; its keyFunc is entryKey
	keyFunc KeyFunc // the caller's
	policy  ExpirationPolicy
	clock   Clock
	expired func(key string) // nil: expiries are not reported
}

func newExpirationCache(keyFunc KeyFunc, policy ExpirationPolicy, opts []ExpirationOption) *expirationCache {
	if keyFunc == nil {
		keyFunc = MetaNamespaceKeyFunc
	}
	c := &expirationCache{keyFunc: keyFunc, policy: policy, clock: systemClock{}}
	c.entries = newCache(c.entryKey, nil)
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// entryKey is the inner cache's KeyFunc: an entry's recorded key, or the
// caller's KeyFunc for an object given to Delete.
func (c *expirationCache) entryKey(obj any) (string, error) {
	if e, ok := obj.(*TimestampedEntry); ok {
		return e.Key, nil
	}
	return c.keyFunc(obj)
}

// stamp wraps obj in an entry written at now. A nil object stays nil, for
// the store to reject.
func stamp(obj any, key string, now time.Time) any {
	if obj == nil {
		return nil
	}
	return &TimestampedEntry{Obj: obj, Timestamp: now, Key: key}
}
