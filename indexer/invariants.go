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

	names := slices.Sorted(maps.Keys(s.indexers))
	if got := slices.Sorted(maps.Keys(s.indices)); !slices.Equal(got, names) {
		return fmt.Errorf("indexes %q do not match indexers %q", got, names)
	}

	// Every stored object is filed under exactly what its IndexFuncs return now.
	for _, key := range slices.Sorted(maps.Keys(s.items)) {
		e := s.items[key]
		if e.obj == nil {
			return fmt.Errorf("key %q holds a nil object", key)
		}
		if len(e.indexed) != len(names) {
			return fmt.Errorf("key %q records %d indexes, want %d", key, len(e.indexed), len(names))
		}
		for _, name := range names {
			fresh, err := s.indexers[name](e.obj)
			if err != nil {
				return fmt.Errorf("key %q: index %q fails on the stored object: %v", key, name, err)
			}
			recorded := lookup(e.indexed, name)
			if !slices.Equal(recorded, withoutDuplicates(fresh)) {
				return fmt.Errorf("key %q: index %q recorded %q, IndexFunc now returns %q", key, name, recorded, fresh)
			}
			for _, v := range recorded {
				if !s.indices[name][v].Has(key) {
					return fmt.Errorf("key %q is not filed under %q in index %q", key, v, name)
				}
			}
		}
	}

	// Every key in an index set names a stored object that records that value;
	// no set is empty.
	for _, name := range names {
		for v, keys := range s.indices[name] {
			if keys.Len() == 0 {
				return fmt.Errorf("index %q keeps an empty set for value %q", name, v)
			}
			for key := range keys {
				e, ok := s.items[key]
				if !ok {
					return fmt.Errorf("index %q value %q holds key %q, which is not stored", name, v, key)
				}
				if !slices.Contains(lookup(e.indexed, name), v) {
					return fmt.Errorf("index %q value %q holds key %q, whose object is not filed there", name, v, key)
				}
			}
		}
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
	for _, key := range slices.Sorted(maps.Keys(c.store.items)) {
		want, err := c.keyFunc(c.store.items[key].obj)
		if err != nil {
			return fmt.Errorf("key %q: KeyFunc fails on the stored object: %v", key, err)
		}
		if want != key {
			return fmt.Errorf("object stored under %q has key %q", key, want)
		}
	}
	return nil
}
