package indexerlab

import (
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
)

// Indexer is a thread-safe store of objects by key, with named indexes.
// Every method may be called from many goroutines at once.
type Indexer struct {
	// Your fields here: a lock, the objects by key, and for each index
	// the keys filed under each value.
}

// NewIndexer returns an empty Indexer that keys objects with keyFunc and
// keeps one index per entry of indexers.
func NewIndexer(keyFunc indexer.KeyFunc, indexers indexer.Indexers) *Indexer {
	panic(grade.NotImplemented("NewIndexer"))
}

// Add stores obj under its key, replacing any object already there, and
// files it in every index. If the key or an IndexFunc fails, it returns
// the error and changes nothing.
func (i *Indexer) Add(obj any) error {
	panic(grade.NotImplemented("Indexer.Add"))
}

// Update is the same as Add.
func (i *Indexer) Update(obj any) error {
	panic(grade.NotImplemented("Indexer.Update"))
}

// Delete removes the object with obj's key, if any, from the store and
// every index. Only obj's key matters.
func (i *Indexer) Delete(obj any) error {
	panic(grade.NotImplemented("Indexer.Delete"))
}

// List returns every stored object, in any order.
func (i *Indexer) List() []any {
	panic(grade.NotImplemented("Indexer.List"))
}

// ListKeys returns every key, in any order.
func (i *Indexer) ListKeys() []string {
	panic(grade.NotImplemented("Indexer.ListKeys"))
}

// Get returns the stored object with obj's key.
func (i *Indexer) Get(obj any) (item any, exists bool, err error) {
	panic(grade.NotImplemented("Indexer.Get"))
}

// GetByKey returns the object stored under key.
func (i *Indexer) GetByKey(key string) (item any, exists bool, err error) {
	panic(grade.NotImplemented("Indexer.GetByKey"))
}

// Replace makes list the whole contents and rebuilds every index; of two
// objects of list with the same key, the later one is kept. If a key or
// an IndexFunc fails for any object, it returns the error and changes
// nothing. resourceVersion can be ignored.
func (i *Indexer) Replace(list []any, resourceVersion string) error {
	panic(grade.NotImplemented("Indexer.Replace"))
}

// Index returns the objects that share at least one value with obj in the
// named index, each once.
func (i *Indexer) Index(indexName string, obj any) ([]any, error) {
	panic(grade.NotImplemented("Indexer.Index"))
}

// IndexKeys returns the keys of the objects filed under indexedValue.
func (i *Indexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	panic(grade.NotImplemented("Indexer.IndexKeys"))
}

// ListIndexFuncValues returns the values of the named index that have at
// least one object; nil for an unknown index.
func (i *Indexer) ListIndexFuncValues(indexName string) []string {
	panic(grade.NotImplemented("Indexer.ListIndexFuncValues"))
}

// ByIndex returns the objects filed under indexedValue. An unknown index
// name is an error.
func (i *Indexer) ByIndex(indexName, indexedValue string) ([]any, error) {
	panic(grade.NotImplemented("Indexer.ByIndex"))
}

// AddIndexers adds indexes and files every stored object in them. A name
// already in use is an error, and then nothing changes.
func (i *Indexer) AddIndexers(newIndexers indexer.Indexers) error {
	panic(grade.NotImplemented("Indexer.AddIndexers"))
}
