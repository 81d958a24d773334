package indexer

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// The write side of threadSafeMap: every change goes through putLocked or
// deleteLocked, with the lock held.

// putLocked is the one write path for Add, Update, Replace and transactions.
// Step 5 (store object & key): the object goes into its key's slot and into
// every index under the values its IndexFuncs return.
func (s *threadSafeMap) putLocked(key string, obj any) error {
	if obj == nil {
		return fmt.Errorf("indexer: cannot store a nil object (key %q)", key)
	}
	// Every IndexFunc runs before anything changes, so a failure rejects the
	// whole write and leaves the store exactly as it was.
	values, err := s.valuesLocked(obj)
	defer func() { clear(s.scratch) }() // drop the IndexFuncs' results
	if err != nil {
		return fmt.Errorf("%w (key %q)", err, key)
	}
	pos, existed := s.positions[key]
	if !existed {
		if pos, err = s.newSlotLocked(key); err != nil {
			return err
		}
	}
	sl := s.slots.at(pos)
	if existed {
		s.unfileChangedLocked(pos, &sl.filed, values)
	}
	sl.obj = obj
	sl.filed = s.fileLocked(pos, &sl.filed, values)
	return nil
}

// valuesLocked runs every IndexFunc on obj, in index order, and returns what
// they returned, duplicates removed. It changes nothing in the store. The
// result lives in s.scratch: the caller clears it when done.
func (s *threadSafeMap) valuesLocked(obj any) ([][]string, error) {
	values := s.scratch[:0]
	for i, fn := range s.funcs {
		var err error
		if fn == nil {
			err = fmt.Errorf("indexer: index %q has a nil IndexFunc", s.names[i])
		} else if vs, fnErr := fn(obj); fnErr != nil {
			err = fmt.Errorf("indexer: index %q: %w", s.names[i], fnErr)
		} else {
			values = append(values, withoutDuplicates(vs))
			continue
		}
		s.scratch = values // so that the caller clears what was computed
		return nil, err
	}
	s.scratch = values
	return values, nil
}

// newSlotLocked gives key a slot: an empty one if there is one, else a new
// one at the end.
func (s *threadSafeMap) newSlotLocked(key string) (int32, error) {
	var pos int32
	if n := len(s.free); n > 0 {
		pos, s.free = s.free[n-1], s.free[:n-1]
	} else {
		if s.slots.len() == math.MaxInt32 {
			return 0, fmt.Errorf("indexer: cannot store %q: the store holds %d objects, its limit", key, s.slots.len())
		}
		pos = s.slots.grow()
	}
	s.slots.at(pos).key = key
	s.positions[key] = pos
	return pos, nil
}

// unfileChangedLocked takes the slot at pos out of every bucket of old whose
// index now returns other values. Indexes whose values did not change are
// left alone: the usual update files nothing anew.
func (s *threadSafeMap) unfileChangedLocked(pos int32, old *filing, values [][]string) {
	for i, idx := range s.indexes {
		if buckets := old.buckets(i); !sameValues(buckets, values[i]) {
			for _, b := range buckets {
				idx.unfile(pos, b)
			}
		}
	}
}

// fileLocked files the slot at pos under values and returns its new filing.
// For an index whose values are those of old it keeps old's buckets; the
// others it files anew (unfileChangedLocked has taken the slot out of their
// old buckets). old is the zero filing for a new slot.
func (s *threadSafeMap) fileLocked(pos int32, old *filing, values [][]string) filing {
	if !fitsInline(values) {
		return s.fileSpilledLocked(pos, old, values)
	}
	var f filing
	for i, vs := range values {
		if len(vs) == 0 {
			continue
		}
		if kept := old.buckets(i); sameValues(kept, vs) {
			f.inline[i] = kept[0]
		} else {
			f.inline[i] = s.indexes[i].file(pos, vs[0])
		}
	}
	return f
}

// fileSpilledLocked is fileLocked for values that do not fit inline.
func (s *threadSafeMap) fileSpilledLocked(pos int32, old *filing, values [][]string) filing {
	spilled := make([][]*bucket, len(values))
	for i, vs := range values {
		if kept := old.buckets(i); sameValues(kept, vs) {
			spilled[i] = slices.Clone(kept)
			continue
		}
		spilled[i] = make([]*bucket, len(vs))
		for j, v := range vs {
			spilled[i][j] = s.indexes[i].file(pos, v)
		}
	}
	return filing{spilled: &spilled}
}

// deleteLocked is the one delete path, for Delete and transactions.
func (s *threadSafeMap) deleteLocked(key string) {
	pos, ok := s.positions[key]
	if !ok {
		return // like client-go, deleting an absent key is not an error
	}
	sl := s.slots.at(pos)
	for i, idx := range s.indexes {
		for _, b := range sl.filed.buckets(i) {
			idx.unfile(pos, b)
		}
	}
	delete(s.positions, key)
	*sl = slot{}
	s.free = append(s.free, pos)
}

// Replace swaps in items and rebuilds every index.
func (s *threadSafeMap) Replace(items map[string]any, resourceVersion string) error {
	keys := slices.Collect(maps.Keys(items))
	return s.replace(len(keys), func(i int) (string, any, error) {
		return keys[i], items[keys[i]], nil
	})
}

// replace makes the n items item(0) ... item(n-1) the whole contents. The new
// contents are built on the side, in maps sized for them from the start, and
// swapped in only if every item could be keyed and indexed: if item or an
// IndexFunc fails, the store is left as it was. A key listed twice keeps its
// last object, as if the items were written into a map in order.
func (s *threadSafeMap) replace(n int, item func(i int) (key string, obj any, err error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	fresh := &threadSafeMap{
		positions: make(map[string]int32, n),
		indexers:  s.indexers,
		names:     s.names,
		funcs:     s.funcs,
		indexes:   make([]index, len(s.indexes)),
		scratch:   s.scratch,
	}
	// The new contents are usually much like the old (a relist): each value
	// starts with room for as many objects as it held, so its bucket does
	// not grow step by step. Buckets left empty are dropped at the end.
	for i, idx := range s.indexes {
		fresh.indexes[i] = make(index, len(idx))
		for v, b := range idx {
			fresh.indexes[i][v] = &bucket{value: v, members: make(map[int32]struct{}, len(b.members))}
		}
	}
	// From the last item to the first, so that of a key listed twice the
	// last object is the one stored, and the earlier ones are not even
	// indexed (a bad object overwritten by a good one fails nothing).
	for i := n - 1; i >= 0; i-- {
		key, obj, err := item(i)
		if err != nil {
			return fmt.Errorf("%w; nothing replaced", err)
		}
		if _, later := fresh.positions[key]; later {
			continue
		}
		if err := fresh.putLocked(key, obj); err != nil {
			return fmt.Errorf("%w; nothing replaced", err)
		}
	}
	for _, idx := range fresh.indexes {
		maps.DeleteFunc(idx, func(_ string, b *bucket) bool { return len(b.members) == 0 })
	}
	s.positions, s.slots, s.free, s.indexes = fresh.positions, fresh.slots, nil, fresh.indexes
	return nil
}

// AddIndexers adds new indexes and files every stored object in them.
func (s *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	added := slices.Sorted(maps.Keys(newIndexers))
	for _, name := range added {
		if _, taken := s.indexers[name]; taken {
			return fmt.Errorf("indexer: cannot add index %q: an index of that name exists", name)
		}
		if newIndexers[name] == nil {
			return fmt.Errorf("indexer: cannot add index %q: nil IndexFunc", name)
		}
	}
	// Compute every new value first; commit only if all IndexFuncs succeeded.
	// values[pos] is, for the object in that slot, its old values followed
	// by the new indexes' values.
	values := make([][][]string, s.slots.len())
	for pos := range int32(s.slots.len()) {
		sl := s.slots.at(pos)
		if sl.obj == nil {
			continue
		}
		vs := make([][]string, 0, len(s.names)+len(added))
		for i := range s.names {
			vs = append(vs, bucketValues(sl.filed.buckets(i)))
		}
		for _, name := range added {
			v, err := newIndexers[name](sl.obj)
			if err != nil {
				return fmt.Errorf("indexer: index %q: %w (key %q); no index added", name, err, sl.key)
			}
			vs = append(vs, withoutDuplicates(v))
		}
		values[pos] = vs
	}
	if s.indexers == nil {
		s.indexers = Indexers{}
	}
	for _, name := range added {
		s.indexers[name] = newIndexers[name]
		s.names = append(s.names, name)
		s.funcs = append(s.funcs, newIndexers[name])
		s.indexes = append(s.indexes, index{})
	}
	for pos := range int32(s.slots.len()) {
		if sl := s.slots.at(pos); sl.obj != nil {
			sl.filed = s.fileLocked(pos, &sl.filed, values[pos])
		}
	}
	return nil
}

// bucketValues returns the values of buckets, in order.
func bucketValues(buckets []*bucket) []string {
	out := make([]string, len(buckets))
	for i, b := range buckets {
		out[i] = b.value
	}
	return out
}
