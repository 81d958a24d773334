package indexer

import (
	"fmt"
	"maps"
	"slices"
)

// checkInvariants returns an error describing the first broken invariant of
// the threadSafeMap doc comment, or nil. Tests call it after every step.
func (s *threadSafeMap) checkInvariants() error {
	s.mu.RLock()
	defer s.mu.RUnlock()

	if err := s.checkSlotsLocked(); err != nil {
		return err
	}
	if got, want := slices.Sorted(slices.Values(s.names)), slices.Sorted(maps.Keys(s.indexers)); !slices.Equal(got, want) {
		return fmt.Errorf("indexes %q do not match indexers %q", got, want)
	}
	if len(s.funcs) != len(s.names) || len(s.indexes) != len(s.names) {
		return fmt.Errorf("%d names, %d funcs, %d indexes", len(s.names), len(s.funcs), len(s.indexes))
	}
	for i, name := range s.names {
		if fmt.Sprint(s.funcs[i]) != fmt.Sprint(s.indexers[name]) {
			return fmt.Errorf("index %q: funcs[%d] is not indexers[%q]", name, i, name)
		}
	}
	if len(slices.DeleteFunc(slices.Clone(s.scratch), func(v []string) bool { return v == nil })) > 0 {
		return fmt.Errorf("scratch holds %d lists between writes", len(s.scratch))
	}

	// Every stored object is filed under exactly what its IndexFuncs return now.
	for _, key := range slices.Sorted(maps.Keys(s.positions)) {
		pos := s.positions[key]
		sl := s.slots.at(pos)
		if sl.filed.spilled != nil && len(*sl.filed.spilled) != len(s.names) {
			return fmt.Errorf("key %q records %d indexes, want %d", key, len(*sl.filed.spilled), len(s.names))
		}
		for i, name := range s.names {
			fresh, err := s.funcs[i](sl.obj)
			if err != nil {
				return fmt.Errorf("key %q: index %q fails on the stored object: %v", key, name, err)
			}
			recorded := sl.filed.buckets(i)
			if !sameValues(recorded, withoutDuplicates(fresh)) {
				return fmt.Errorf("key %q: index %q recorded %q, IndexFunc now returns %q", key, name, bucketValues(recorded), fresh)
			}
			for _, b := range recorded {
				if s.indexes[i][b.value] != b {
					return fmt.Errorf("key %q: index %q value %q: the filing's bucket is not the index's", key, name, b.value)
				}
				if _, ok := b.members[pos]; !ok {
					return fmt.Errorf("key %q is not filed under %q in index %q", key, b.value, name)
				}
			}
		}
	}

	// Every position in a bucket names a stored object filed there; no
	// bucket is empty.
	for i, name := range s.names {
		for v, b := range s.indexes[i] {
			if b.value != v {
				return fmt.Errorf("index %q files value %q under %q", name, b.value, v)
			}
			if len(b.members) == 0 {
				return fmt.Errorf("index %q keeps an empty set for value %q", name, v)
			}
			for pos := range b.members {
				if pos < 0 || int(pos) >= s.slots.len() || s.slots.at(pos).obj == nil {
					return fmt.Errorf("index %q value %q holds slot %d, which is empty", name, v, pos)
				}
				if !slices.Contains(s.slots.at(pos).filed.buckets(i), b) {
					return fmt.Errorf("index %q value %q holds key %q, whose object is not filed there", name, v, s.slots.at(pos).key)
				}
			}
		}
	}
	return nil
}

// checkSlotsLocked checks that positions, slots and free agree: every key
// names a slot holding it, every other slot is empty and free exactly once.
func (s *threadSafeMap) checkSlotsLocked() error {
	made := 0
	for i, chunk := range s.slots.chunks {
		if i < len(s.slots.chunks)-1 && len(chunk) != chunkSize {
			return fmt.Errorf("slot chunk %d of %d holds %d slots, want %d", i, len(s.slots.chunks), len(chunk), chunkSize)
		}
		made += len(chunk)
	}
	if made != s.slots.len() {
		return fmt.Errorf("slot chunks hold %d slots, the table counts %d", made, s.slots.len())
	}
	used := make([]bool, s.slots.len())
	for key, pos := range s.positions {
		if pos < 0 || int(pos) >= s.slots.len() {
			return fmt.Errorf("key %q at position %d, outside %d slots", key, pos, s.slots.len())
		}
		if sl := s.slots.at(pos); sl.key != key || sl.obj == nil {
			return fmt.Errorf("key %q at position %d, whose slot holds key %q, object %v", key, pos, sl.key, sl.obj)
		}
		used[pos] = true
	}
	for _, pos := range s.free {
		if pos < 0 || int(pos) >= s.slots.len() || used[pos] {
			return fmt.Errorf("free position %d is out of range, in use or listed twice", pos)
		}
		if *s.slots.at(pos) != (slot{}) {
			return fmt.Errorf("free slot %d is not empty", pos)
		}
		used[pos] = true
	}
	if i := slices.Index(used, false); i >= 0 {
		return fmt.Errorf("slot %d is neither in use nor free", i)
	}
	return nil
}

// checkInvariants checks the ThreadSafeStore's invariants, then that every
// object is stored under the key the KeyFunc gives it.
func (c *cache) checkInvariants() error {
	if err := c.store.checkInvariants(); err != nil {
		return err
	}
	c.store.mu.RLock()
	defer c.store.mu.RUnlock()
	for _, key := range slices.Sorted(maps.Keys(c.store.positions)) {
		want, err := c.keyFunc(c.store.slots.at(c.store.positions[key]).obj)
		if err != nil {
			return fmt.Errorf("key %q: KeyFunc fails on the stored object: %v", key, err)
		}
		if want != key {
			return fmt.Errorf("object stored under %q has key %q", key, want)
		}
	}
	return nil
}

// checkInvariants checks the inner cache, then that every entry wraps a
// non-nil object whose key, by the caller's KeyFunc, is the entry's Key.
func (c *expirationCache) checkInvariants() error {
	if err := c.entries.checkInvariants(); err != nil {
		return err
	}
	for _, item := range c.entries.store.List() {
		entry, ok := item.(*TimestampedEntry)
		if !ok {
			return fmt.Errorf("expiration store holds a %T, not a *TimestampedEntry", item)
		}
		if entry.Obj == nil {
			return fmt.Errorf("entry %q holds a nil object", entry.Key)
		}
		if key, err := c.keyFunc(entry.Obj); err != nil || key != entry.Key {
			return fmt.Errorf("entry %q holds an object keyed %q (%v)", entry.Key, key, err)
		}
	}
	return nil
}

// checkInvariants checks the overlay's LRU, then that each written copy is
// remembered under its key with its resourceVersion and uid.
func (c *MutationCache) checkInvariants() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writes.checkInvariants(); err != nil {
		return err
	}
	for el := c.writes.order.Front(); el != nil; el = el.Next() {
		rec := el.Value.(*recentWrite)
		if rec.deleted() {
			continue
		}
		key, m, err := identify(rec.obj)
		if err != nil || key != rec.key || m.GetResourceVersion() != rec.rv || m.GetUID() != rec.uid {
			return fmt.Errorf("mutation cache: record %q at resourceVersion %q does not match its object (%v)", rec.key, rec.rv, err)
		}
	}
	return nil
}
