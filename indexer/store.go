package indexer

// Store is a key-value cache of objects: it computes each object's key with a
// [KeyFunc] and keeps the object under it. It is safe for concurrent use.
//
// Objects are kept and returned as given, never copied. Treat everything a
// Store returns as read-only; DeepCopy before changing anything.
//
// client-go: tools/cache.Store.
type Store interface {
	// Add stores obj under its key, replacing any object already there.
	Add(obj any) error
	// Update is the same as Add: both are upserts.
	Update(obj any) error
	// Delete removes the object with obj's key, if any. Only the key of obj
	// matters, not its contents.
	Delete(obj any) error
	// List returns every stored object, in no particular order.
	List() []any
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Get returns the stored object with obj's key.
	Get(obj any) (item any, exists bool, err error)
	// GetByKey returns the object stored under key.
	GetByKey(key string) (item any, exists bool, err error)
	// Replace makes list the whole contents of the store, rebuilding every
	// index. It is all or nothing: if a key or an index value cannot be
	// computed for any object, it returns the error and changes nothing.
	// resourceVersion is accepted for client-go compatibility and not recorded.
	Replace(list []any, resourceVersion string) error
	// Resync does nothing; it exists so a Store and a queue share a method set.
	Resync() error
	// Transaction applies several writes under one lock acquisition, in
	// order; a write that fails is skipped and reported in a
	// *TransactionError, the others are applied (transaction.go).
	Transaction(txns ...Transaction) error
}

// Indexer is a [Store] with named indexes: besides by key, objects can be
// found by any value an [IndexFunc] computes from them (their namespace, a
// label, an owner, ...). It is safe for concurrent use.
//
// A write whose key or IndexFunc fails is rejected with that error and leaves
// the store and every index exactly as they were.
//
// client-go: tools/cache.Indexer.
type Indexer interface {
	Store
	// Index returns the objects that share at least one value with obj in the
	// named index, each once, in no particular order.
	Index(indexName string, obj any) ([]any, error)
	// IndexKeys returns the keys of the objects filed under indexedValue, sorted.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ListIndexFuncValues returns the values of the named index that have at
	// least one object, sorted; nil for an unknown index.
	ListIndexFuncValues(indexName string) []string
	// ByIndex returns the objects filed under indexedValue, in no particular order.
	ByIndex(indexName, indexedValue string) ([]any, error)
	// GetIndexers returns a copy of the index functions.
	GetIndexers() Indexers
	// AddIndexers adds indexes, filing every object already stored in them.
	// It may be called at any time, also on a store that holds objects; it
	// fails, changing nothing, on a name that is taken, a nil function or a
	// function that fails on a stored object.
	AddIndexers(newIndexers Indexers) error
}

// NewStore returns an empty Store that keys objects with keyFunc; a nil keyFunc
// means [MetaNamespaceKeyFunc].
//
// client-go: tools/cache.NewStore.
func NewStore(keyFunc KeyFunc) Store {
	return newCache(keyFunc, nil)
}

// NewIndexer returns an empty Indexer that keys objects with keyFunc (nil means
// [MetaNamespaceKeyFunc]) and maintains the given indexes. The Indexers map is
// copied. An index whose IndexFunc is nil makes every write fail with an error.
//
// client-go: tools/cache.NewIndexer.
func NewIndexer(keyFunc KeyFunc, indexers Indexers) Indexer {
	return newCache(keyFunc, indexers)
}

// cache implements Store and Indexer: a KeyFunc in front of a threadSafeMap.
// It holds no lock of its own; the threadSafeMap's lock covers every call.
type cache struct {
	keyFunc KeyFunc
	store   *threadSafeMap
}

func newCache(keyFunc KeyFunc, indexers Indexers) *cache {
	if keyFunc == nil {
		keyFunc = MetaNamespaceKeyFunc
	}
	return &cache{keyFunc: keyFunc, store: newThreadSafeMap(indexers)}
}

// keyOf runs the KeyFunc, wrapping a failure in a KeyError.
func (c *cache) keyOf(obj any) (string, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// Add stores obj under its key.
// Step 4 (add object): the informer hands each popped object to the indexer.
func (c *cache) Add(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	return c.store.Add(key, obj)
}

// Update stores obj under its key.
func (c *cache) Update(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	return c.store.Update(key, obj)
}

// Delete removes the object with obj's key.
func (c *cache) Delete(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.store.Delete(key)
	return nil
}

// List returns every stored object.
func (c *cache) List() []any { return c.store.List() }

// ListKeys returns every key.
func (c *cache) ListKeys() []string { return c.store.ListKeys() }

// Get returns the stored object with obj's key.
func (c *cache) Get(obj any) (any, bool, error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return c.GetByKey(key)
}

// GetByKey returns the object stored under key. The error is always nil; it is
// there to match client-go's signature.
// Step 9 (get object for key): a worker turns the key it dequeued back into
// the current object.
func (c *cache) GetByKey(key string) (any, bool, error) {
	item, exists := c.store.Get(key)
	return item, exists, nil
}

// Replace makes list the whole contents of the store. Each key is computed
// once, inside the store's one pass over the list.
func (c *cache) Replace(list []any, resourceVersion string) error {
	return c.store.replace(len(list), func(i int) (string, any, error) {
		key, err := c.keyOf(list[i])
		return key, list[i], err
	})
}

// Resync does nothing.
func (c *cache) Resync() error { return nil }

// Index returns the objects sharing a value with obj in indexName.
func (c *cache) Index(indexName string, obj any) ([]any, error) {
	return c.store.Index(indexName, obj)
}

// IndexKeys returns the sorted keys filed under indexedValue.
func (c *cache) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return c.store.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns the sorted values of indexName.
func (c *cache) ListIndexFuncValues(indexName string) []string {
	return c.store.ListIndexFuncValues(indexName)
}

// ByIndex returns the objects filed under indexedValue.
func (c *cache) ByIndex(indexName, indexedValue string) ([]any, error) {
	return c.store.ByIndex(indexName, indexedValue)
}

// GetIndexers returns a copy of the index functions.
func (c *cache) GetIndexers() Indexers { return c.store.GetIndexers() }

// AddIndexers adds indexes and files every stored object in them.
func (c *cache) AddIndexers(newIndexers Indexers) error {
	return c.store.AddIndexers(newIndexers)
}
