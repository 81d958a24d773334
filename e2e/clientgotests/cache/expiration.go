package cache

// client-go's expiration store, mapped onto informerlab's
// (indexer.NewExpirationStore and NewTTLStore).
//
// TimestampedEntry, ExpirationPolicy and TTLPolicy are this package's own
// types, not aliases: client-go's TestTTLPolicy builds a TimestampedEntry
// literal with the unexported field key, which only a type declared in this
// package can have. informerlab's entry (indexer.TimestampedEntry, whose Key
// is exported) is converted to this one on its way to a policy (shimPolicy),
// and TTLPolicy.IsExpired is indexer.TTLPolicy's.
//
// FakeExpirationPolicy and NewFakeExpirationStore are client-go's test
// doubles (its expiration_cache_fakes.go), which the shim provides:
// informerlab has no fake store. NewFakeExpirationStore is informerlab's
// expiration store with the given clock, reporting each expired key on
// deletedKeys (indexer.WithExpiredFunc) as client-go's fake does.

import (
	"time"

	"github.com/informerlab/informerlab/indexer"
	"k8s.io/apimachinery/pkg/util/sets"
)

type TimestampedEntry struct {
	Obj       interface{}
	Timestamp time.Time
	key       string
}

type ExpirationPolicy interface {
	IsExpired(obj *TimestampedEntry) bool
}

type TTLPolicy struct {
	TTL   time.Duration
	Clock indexer.Clock
}

func (p *TTLPolicy) IsExpired(obj *TimestampedEntry) bool {
	lab := indexer.TTLPolicy{TTL: p.TTL, Clock: p.Clock}
	return lab.IsExpired(&indexer.TimestampedEntry{Obj: obj.Obj, Timestamp: obj.Timestamp, Key: obj.key})
}

// shimPolicy hands informerlab's entries to a client-go policy.
type shimPolicy struct{ policy ExpirationPolicy }

func (p shimPolicy) IsExpired(e *indexer.TimestampedEntry) bool {
	return p.policy.IsExpired(&TimestampedEntry{Obj: e.Obj, Timestamp: e.Timestamp, key: e.Key})
}

var NewTTLStore = indexer.NewTTLStore

func NewExpirationStore(keyFunc KeyFunc, expirationPolicy ExpirationPolicy) Store {
	return indexer.NewExpirationStore(keyFunc, shimPolicy{expirationPolicy})
}

// FakeExpirationPolicy expires every entry whose key, by RetrieveKeyFunc
// applied to the entry, is not in NeverExpire.
type FakeExpirationPolicy struct {
	NeverExpire     sets.Set[string]
	RetrieveKeyFunc KeyFunc
}

func (p *FakeExpirationPolicy) IsExpired(obj *TimestampedEntry) bool {
	key, _ := p.RetrieveKeyFunc(obj)
	return !p.NeverExpire.Has(key)
}

func NewFakeExpirationStore(keyFunc KeyFunc, deletedKeys chan<- string, expirationPolicy ExpirationPolicy, cacheClock indexer.Clock) Store {
	opts := []indexer.ExpirationOption{indexer.WithClock(cacheClock)}
	if deletedKeys != nil {
		opts = append(opts, indexer.WithExpiredFunc(func(key string) { deletedKeys <- key }))
	}
	return indexer.NewExpirationStore(keyFunc, shimPolicy{expirationPolicy}, opts...)
}
