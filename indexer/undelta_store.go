package indexer

import (
	"errors"
	"sync"
)

// NewUndeltaStore returns a Store that keys objects with keyFunc (nil means
// [MetaNamespaceKeyFunc]) and, after every write, calls push with the whole
// contents of the store: it turns a stream of changes (a Reflector's Add,
// Update, Delete and Replace) back into a stream of complete states, for a
// consumer that wants "everything there is now" rather than "what changed".
//
// Each successful Add, Update, Delete or Replace, and each Transaction that
// applied at least one write, is followed by exactly one push, also when the
// write changed nothing (a Delete of an absent key). A write that fails
// pushes nothing; reads never push. The writes and their pushes are
// serialized: push is called one call at a time, in the order of the writes,
// each time with the contents right after its own write, so the last push
// always shows what the store holds. push runs on the writer's goroutine
// while the next write waits; it may read the store, but a write to the same
// store from inside push never returns. A nil push means nothing is pushed.
//
// The list handed to push is new for each call; the objects in it are the
// stored ones, shared with every reader.
//
// client-go: tools/cache.NewUndeltaStore.
func NewUndeltaStore(push func([]any), keyFunc KeyFunc) Store {
	if push == nil {
		push = func([]any) {}
	}
	return &undeltaStore{cache: newCache(keyFunc, nil), push: push}
}

// undeltaStore is a cache whose writes each end in a push of its contents.
// Reads go straight to the cache.
type undeltaStore struct {
	*cache
	push func([]any)

	writeMu sync.Mutex // held across each write and its push, so pushes arrive in write order
}

// wrote pushes the contents after a write that returned err, unless the
// write changed nothing because it failed. Called with writeMu held.
func (u *undeltaStore) wrote(err error) error {
	if err != nil {
		return err
	}
	u.push(u.cache.List())
	return nil
}

// Add stores obj under its key and pushes the contents.
func (u *undeltaStore) Add(obj any) error {
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	return u.wrote(u.cache.Add(obj))
}

// Update stores obj under its key and pushes the contents.
func (u *undeltaStore) Update(obj any) error {
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	return u.wrote(u.cache.Update(obj))
}

// Delete removes the object with obj's key and pushes the contents.
func (u *undeltaStore) Delete(obj any) error {
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	return u.wrote(u.cache.Delete(obj))
}

// Replace makes list the whole contents and pushes them.
func (u *undeltaStore) Replace(list []any, resourceVersion string) error {
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	return u.wrote(u.cache.Replace(list, resourceVersion))
}

// Transaction applies txns and pushes the contents once, if at least one
// write was applied; the error is returned either way.
func (u *undeltaStore) Transaction(txns ...Transaction) error {
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	err := u.cache.Transaction(txns...)
	var txnErr *TransactionError
	if len(txns) > 0 && (err == nil || errors.As(err, &txnErr) && len(txnErr.SuccessfulIndices) > 0) {
		u.push(u.cache.List())
	}
	return err
}
