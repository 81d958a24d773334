package indexer

// The Store methods of expirationCache (expiration_cache.go): writes stamp,
// reads expire.

// Add stores obj stamped with the current time, replacing any entry under
// its key and so starting its time over.
func (c *expirationCache) Add(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	return c.entries.store.Add(key, stamp(obj, key, c.clock.Now()))
}

// Update is Add: it stamps obj anew.
func (c *expirationCache) Update(obj any) error { return c.Add(obj) }

// Delete removes the entry with obj's key. It is not reported as expired.
func (c *expirationCache) Delete(obj any) error { return c.entries.Delete(obj) }

// Get returns the object with obj's key, unless its entry has expired.
func (c *expirationCache) Get(obj any) (any, bool, error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return c.GetByKey(key)
}

// GetByKey returns the object under key, unless its entry has expired; an
// expired entry is removed. The error is always nil.
func (c *expirationCache) GetByKey(key string) (any, bool, error) {
	item, exists := c.entries.store.Get(key)
	if !exists {
		return nil, false, nil
	}
	entry := item.(*TimestampedEntry)
	if c.expire(entry) {
		return nil, false, nil
	}
	return entry.Obj, true, nil
}

// List returns the objects whose entries have not expired, removing the
// others.
func (c *expirationCache) List() []any {
	entries := c.entries.store.List()
	out := make([]any, 0, len(entries))
	for _, item := range entries {
		if entry := item.(*TimestampedEntry); !c.expire(entry) {
			out = append(out, entry.Obj)
		}
	}
	return out
}

// ListKeys returns the keys of the entries that have not expired, removing
// the others.
func (c *expirationCache) ListKeys() []string {
	entries := c.entries.store.List()
	out := make([]string, 0, len(entries))
	for _, item := range entries {
		if entry := item.(*TimestampedEntry); !c.expire(entry) {
			out = append(out, entry.Key)
		}
	}
	return out
}

// Replace makes list the whole contents, every object stamped with the same
// time. All or nothing, like every Store's Replace.
func (c *expirationCache) Replace(list []any, resourceVersion string) error {
	now := c.clock.Now()
	return c.entries.store.replace(len(list), func(i int) (string, any, error) {
		key, err := c.keyOf(list[i])
		return key, stamp(list[i], key, now), err
	})
}

// Resync does nothing.
func (c *expirationCache) Resync() error { return nil }

// Transaction applies txns under one lock, each Add and Update stamped with
// the same time. As in every Store, a failed write is skipped and reported in
// a *TransactionError.
func (c *expirationCache) Transaction(txns ...Transaction) error {
	now := c.clock.Now()
	stamped := make([]Transaction, len(txns))
	for i, txn := range txns {
		stamped[i] = txn
		if txn.Type != TransactionTypeAdd && txn.Type != TransactionTypeUpdate {
			continue // a Delete is keyed by the caller's KeyFunc; an unknown type is refused
		}
		if key, err := c.keyFunc(txn.Object); err == nil {
			stamped[i].Object = stamp(txn.Object, key, now)
		} // else the object stays as given, and the inner store reports the same key error
	}
	return c.entries.Transaction(stamped...)
}

// keyOf runs the caller's KeyFunc, wrapping a failure in a KeyError.
func (c *expirationCache) keyOf(obj any) (string, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// expire reports whether entry has expired, and if so removes it, provided
// the store still holds this very entry: if the object was written again
// since entry was read, the new entry stays. The policy runs outside the
// lock. Only the read that removes the entry reports it to the expired func.
func (c *expirationCache) expire(entry *TimestampedEntry) bool {
	if !c.policy.IsExpired(entry) {
		return false
	}
	s := c.entries.store
	s.mu.Lock()
	pos, stored := s.positions[entry.Key]
	removed := stored && s.slots.at(pos).obj == any(entry)
	if removed {
		s.deleteLocked(entry.Key)
	}
	s.mu.Unlock()
	if removed && c.expired != nil {
		c.expired(entry.Key)
	}
	return true
}
