package indexer

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
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

// threadSafeMap implements ThreadSafeStore.
//
// Invariants (checked by checkInvariants; they hold whenever mu is not held):
//   - No stored object is nil.
//   - indices has exactly one index per entry of indexers, under the same name.
//   - Every entry records, for each index, exactly the values that index's
//     IndexFunc returns for entry.obj, without duplicates.
//   - For every index name, value v and key k: k is in indices[name][v] if and
//     only if items[k] exists and records v for that index. So every key in an
//     index set names a stored object, and every stored object is fully indexed.
//   - No value in any index maps to an empty set.
type threadSafeMap struct {
	mu       sync.RWMutex // guards items, indexers and indices
	items    map[string]entry
	indexers Indexers
	indices  map[string]index
}

// entry is one stored object together with the values it is filed under.
// Recording the values means removing an object from its indexes never runs an
// IndexFunc again: a Delete cannot fail, and an object that was modified in
// place after it was stored is still removed from the values it was filed under.
type entry struct {
	obj     any
	indexed []indexedValues // one element per index
}

func newThreadSafeMap(indexers Indexers) *threadSafeMap {
	indices := make(map[string]index, len(indexers))
	for name := range indexers {
		indices[name] = index{}
	}
	return &threadSafeMap{
		items:    map[string]entry{},
		indexers: maps.Clone(indexers),
		indices:  indices,
	}
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

// putLocked is the one write path for Add and Update.
// Step 5 (store object & key): the object goes into items under its key and
// into every index under the values its IndexFuncs return.
func (s *threadSafeMap) putLocked(key string, obj any) error {
	if obj == nil {
		return fmt.Errorf("indexer: cannot store a nil object (key %q)", key)
	}
	// Every IndexFunc runs before anything changes, so a failure rejects the
	// whole write and leaves the store exactly as it was.
	indexed, err := computeValues(s.indexers, obj)
	if err != nil {
		return fmt.Errorf("%w (key %q)", err, key)
	}
	old, existed := s.items[key]
	for _, iv := range indexed {
		idx := s.indices[iv.index]
		if existed {
			oldValues := lookup(old.indexed, iv.index)
			if slices.Equal(oldValues, iv.values) {
				continue // the usual update: the object stays where it was filed
			}
			idx.unfile(key, oldValues)
		}
		idx.file(key, iv.values)
	}
	s.items[key] = entry{obj: obj, indexed: indexed}
	return nil
}

// Delete removes the object under key and its index entries.
func (s *threadSafeMap) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(key)
}

// deleteLocked is the one delete path, for Delete and transactions.
func (s *threadSafeMap) deleteLocked(key string) {
	old, ok := s.items[key]
	if !ok {
		return // like client-go, deleting an absent key is not an error
	}
	for _, iv := range old.indexed {
		s.indices[iv.index].unfile(key, iv.values)
	}
	delete(s.items, key)
}

// Get returns the object under key.
func (s *threadSafeMap) Get(key string) (any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.items[key]
	return e.obj, ok
}

// List returns every stored object.
func (s *threadSafeMap) List() []any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]any, 0, len(s.items))
	for _, e := range s.items {
		out = append(out, e.obj)
	}
	return out
}

// ListKeys returns every key.
func (s *threadSafeMap) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Collect(maps.Keys(s.items))
}

// Replace swaps in items and rebuilds every index.
func (s *threadSafeMap) Replace(items map[string]any, resourceVersion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	// Build the new contents on the side; commit only if every IndexFunc succeeded.
	newItems := make(map[string]entry, len(items))
	newIndices := make(map[string]index, len(s.indexers))
	for name := range s.indexers {
		newIndices[name] = index{}
	}
	for key, obj := range items {
		if obj == nil {
			return fmt.Errorf("indexer: cannot store a nil object (key %q); nothing replaced", key)
		}
		indexed, err := computeValues(s.indexers, obj)
		if err != nil {
			return fmt.Errorf("%w (key %q); nothing replaced", err, key)
		}
		for _, iv := range indexed {
			newIndices[iv.index].file(key, iv.values)
		}
		newItems[key] = entry{obj: obj, indexed: indexed}
	}
	s.items, s.indices = newItems, newIndices
	return nil
}

// Resync does nothing.
func (s *threadSafeMap) Resync() error { return nil }

// Index returns the objects sharing at least one value with obj in indexName.
func (s *threadSafeMap) Index(indexName string, obj any) ([]any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn, ok := s.indexers[indexName]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchIndex, indexName)
	}
	if fn == nil {
		return nil, fmt.Errorf("indexer: index %q has a nil IndexFunc", indexName)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, fmt.Errorf("indexer: index %q: %w", indexName, err)
	}
	idx := s.indices[indexName]
	if len(values) == 1 {
		return s.objectsLocked(idx[values[0]]), nil
	}
	// Several values: an object filed under two of them must appear once.
	keys := sets.New[string]()
	for _, v := range values {
		keys = keys.Union(idx[v])
	}
	return s.objectsLocked(keys), nil
}

// IndexKeys returns the sorted keys filed under indexedValue.
func (s *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchIndex, indexName)
	}
	return sets.List(idx[indexedValue]), nil
}

// ListIndexFuncValues returns the sorted values of indexName.
func (s *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.indices[indexName]
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(idx))
}

// ByIndex returns the objects filed under indexedValue.
// Step 9 (get object for key): how a controller finds, say, every pod of one
// namespace or one app without scanning the whole cache.
func (s *threadSafeMap) ByIndex(indexName, indexedValue string) ([]any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSuchIndex, indexName)
	}
	return s.objectsLocked(idx[indexedValue]), nil
}

// objectsLocked returns the objects stored under keys.
func (s *threadSafeMap) objectsLocked(keys sets.Set[string]) []any {
	out := make([]any, 0, len(keys))
	for key := range keys {
		out = append(out, s.items[key].obj)
	}
	return out
}

// GetIndexers returns a copy of the index functions.
func (s *threadSafeMap) GetIndexers() Indexers {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.indexers)
}

// AddIndexers adds new indexes and files every stored object in them.
func (s *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	for _, name := range slices.Sorted(maps.Keys(newIndexers)) {
		if _, taken := s.indexers[name]; taken {
			return fmt.Errorf("indexer: cannot add index %q: an index of that name exists", name)
		}
		if newIndexers[name] == nil {
			return fmt.Errorf("indexer: cannot add index %q: nil IndexFunc", name)
		}
	}
	// Compute every new value first; commit only if all IndexFuncs succeeded.
	added := make(map[string][]indexedValues, len(s.items))
	for key, e := range s.items {
		indexed, err := computeValues(newIndexers, e.obj)
		if err != nil {
			return fmt.Errorf("%w (key %q); no index added", err, key)
		}
		added[key] = indexed
	}
	for name, fn := range newIndexers {
		if s.indexers == nil {
			s.indexers = Indexers{}
		}
		s.indexers[name] = fn
		s.indices[name] = index{}
	}
	for key, indexed := range added {
		e := s.items[key]
		for _, iv := range indexed {
			s.indices[iv.index].file(key, iv.values)
		}
		// A fresh slice: entries never share a backing array.
		e.indexed = slices.Concat(e.indexed, indexed)
		s.items[key] = e
	}
	return nil
}
