package indexer

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// ThreadSafeStore is the storage behind [Store] and [Indexer]: objects by key,
// plus the indexes. It is safe for concurrent use; every method takes the
// store's lock for its whole duration, so a reader sees either all of a write
// (the object and every index) or none of it.
//
// Objects are stored and returned as given, never copied: see the "never
// mutate" rule in the package documentation.
//
// client-go: tools/cache.ThreadSafeStore.
type ThreadSafeStore interface {
	// Add stores obj under key, replacing any object already there. If obj
	// is nil or an IndexFunc fails, Add returns an error and changes nothing.
	Add(key string, obj any) error
	// Update is the same as Add.
	Update(key string, obj any) error
	// Delete removes the object under key, if any. It never runs an IndexFunc,
	// so it cannot fail.
	Delete(key string)
	// Get returns the object stored under key.
	Get(key string) (item any, exists bool)
	// List returns every stored object, in no particular order.
	List() []any
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Replace swaps the whole contents for items (key -> object) and rebuilds
	// every index from scratch. If any object is nil or an IndexFunc fails
	// on one, Replace returns an error and changes nothing. resourceVersion is accepted for
	// client-go compatibility and not recorded.
	Replace(items map[string]any, resourceVersion string) error
	// Resync does nothing: a store has nothing to resync. It exists so a
	// store satisfies the same interface as a queue.
	Resync() error

	// Index returns the objects that share at least one indexed value with
	// obj in the named index, each once, in no particular order.
	Index(indexName string, obj any) ([]any, error)
	// IndexKeys returns the keys filed under indexedValue, sorted.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ListIndexFuncValues returns the values of the named index that have at
	// least one object, sorted; nil for an unknown index.
	ListIndexFuncValues(indexName string) []string
	// ByIndex returns the objects filed under indexedValue, in no particular order.
	ByIndex(indexName, indexedValue string) ([]any, error)
	// GetIndexers returns a copy of the index functions.
	GetIndexers() Indexers
	// AddIndexers adds indexes and files every stored object in them at once.
	// It fails, changing nothing, if a name is already taken, a function is
	// nil, or a function fails on a stored object.
	AddIndexers(newIndexers Indexers) error
}

// NewThreadSafeStore returns an empty ThreadSafeStore with the given indexes.
// The Indexers map is copied; changing it afterwards has no effect.
//
// client-go: tools/cache.NewThreadSafeStore.
func NewThreadSafeStore(indexers Indexers) ThreadSafeStore {
	return newThreadSafeMap(indexers)
}

// threadSafeMap implements ThreadSafeStore. Objects live in slots, found by
// key through positions; indexes file slot positions (filing.go draws it).
//
// Invariants (checked by checkInvariants; they hold whenever mu is not held):
//   - positions maps every stored key to the slot holding it: that slot has
//     the key and a non-nil object. Every other slot is empty and listed in
//     free exactly once.
//   - names, funcs and indexes have one element per entry of indexers, the
//     same name at the same position.
//   - Every stored object is filed, for each index, under exactly the values
//     that index's IndexFunc returns for it, without duplicates: its filing
//     holds the buckets of those values, each the bucket indexes[i] keeps for
//     its value, and each bucket lists the object's position.
//   - Every position in a bucket names a stored object filed in that bucket;
//     no bucket is empty.
type threadSafeMap struct {
	mu        sync.RWMutex // guards everything below
	positions map[string]int32
	slots     slotTable
	free      []int32 // positions of the empty slots, reused before slots grows
	indexers  Indexers
	names     []string    // the index names: a filing records index i's buckets at position i
	funcs     []IndexFunc // funcs[i] computes index names[i]
	indexes   []index     // indexes[i] is index names[i]
	scratch   [][]string  // reused by valuesLocked; empty between writes
}

func newThreadSafeMap(indexers Indexers) *threadSafeMap {
	s := &threadSafeMap{positions: map[string]int32{}, indexers: maps.Clone(indexers)}
	s.names = slices.Sorted(maps.Keys(indexers))
	for _, name := range s.names {
		s.funcs = append(s.funcs, indexers[name])
		s.indexes = append(s.indexes, index{})
	}
	return s
}

// indexOf returns the position of the named index. A linear search: a store
// has a handful of indexes, and comparing a few strings beats hashing one.
func (s *threadSafeMap) indexOf(name string) (int, bool) {
	for i, n := range s.names {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// Add stores obj under key.
func (s *threadSafeMap) Add(key string, obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putLocked(key, obj)
}

// Update stores obj under key: like client-go, Add and Update are both upserts.
func (s *threadSafeMap) Update(key string, obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putLocked(key, obj)
}

// Delete removes the object under key and its index entries.
func (s *threadSafeMap) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(key)
}

// Get returns the object under key.
func (s *threadSafeMap) Get(key string) (any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	pos, ok := s.positions[key]
	if !ok {
		return nil, false
	}
	return s.slots.at(pos).obj, true
}

// List returns every stored object.
func (s *threadSafeMap) List() []any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]any, 0, len(s.positions))
	for pos := range int32(s.slots.len()) {
		if sl := s.slots.at(pos); sl.obj != nil {
			out = append(out, sl.obj)
		}
	}
	return out
}

// ListKeys returns every key.
func (s *threadSafeMap) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.positions))
	for pos := range int32(s.slots.len()) {
		if sl := s.slots.at(pos); sl.obj != nil {
			out = append(out, sl.key)
		}
	}
	return out
}

// Resync does nothing.
func (s *threadSafeMap) Resync() error { return nil }

// Index returns the objects sharing at least one value with obj in indexName.
func (s *threadSafeMap) Index(indexName string, obj any) ([]any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.indexOf(indexName)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchIndex, indexName)
	}
	if s.funcs[i] == nil {
		return nil, fmt.Errorf("indexer: index %q has a nil IndexFunc", indexName)
	}
	values, err := s.funcs[i](obj)
	if err != nil {
		return nil, fmt.Errorf("indexer: index %q: %w", indexName, err)
	}
	if len(values) == 1 {
		return s.objectsLocked(s.indexes[i][values[0]]), nil
	}
	// Several values: an object filed under two of them must appear once.
	seen := map[int32]struct{}{}
	out := []any{}
	for _, v := range values {
		b := s.indexes[i][v]
		if b == nil {
			continue
		}
		for pos := range b.members {
			if _, dup := seen[pos]; !dup {
				seen[pos] = struct{}{}
				out = append(out, s.slots.at(pos).obj)
			}
		}
	}
	return out, nil
}

// IndexKeys returns the sorted keys filed under indexedValue.
func (s *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.indexOf(indexName)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchIndex, indexName)
	}
	b := s.indexes[i][indexedValue]
	if b == nil {
		return []string{}, nil
	}
	keys := make([]string, 0, len(b.members))
	for pos := range b.members {
		keys = append(keys, s.slots.at(pos).key)
	}
	slices.Sort(keys)
	return keys, nil
}

// ListIndexFuncValues returns the sorted values of indexName.
func (s *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.indexOf(indexName)
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(s.indexes[i]))
}

// ByIndex returns the objects filed under indexedValue.
// Step 9 (get object for key): how a controller finds, say, every pod of one
// namespace or one app without scanning the whole cache.
func (s *threadSafeMap) ByIndex(indexName, indexedValue string) ([]any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.indexOf(indexName)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchIndex, indexName)
	}
	return s.objectsLocked(s.indexes[i][indexedValue]), nil
}

// objectsLocked returns the objects filed in b (none if b is nil).
func (s *threadSafeMap) objectsLocked(b *bucket) []any {
	if b == nil {
		return []any{}
	}
	out := make([]any, 0, len(b.members))
	for pos := range b.members {
		out = append(out, s.slots.at(pos).obj)
	}
	return out
}

// GetIndexers returns a copy of the index functions.
func (s *threadSafeMap) GetIndexers() Indexers {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.indexers)
}
