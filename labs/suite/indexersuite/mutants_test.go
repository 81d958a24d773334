package indexersuite_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/indexersuite"
)

// catalogue is the mistakes a learner plausibly makes writing lab 1, each
// with the behaviours that must report it. The wrong code is in
// learnerIndexer, behind `mistake == "<name>"`: the store a learner writes
// from the README's hints, right but for that one mistake.
var catalogue = []grade.Mistake{
	{Name: "update-leaves-stale-value", What: "Update files the object under its new values without removing it from the old ones",
		Catches: []string{"UpdateMovesObjectBetweenValues", "EmptyValuesDisappear"}},
	{Name: "delete-keeps-index", What: "Delete removes the object from the store but leaves its key in the indexes",
		Catches: []string{"EmptyValuesDisappear"}},
	{Name: "empty-values-kept", What: "removing the last key of a value leaves an empty set behind",
		Catches: []string{"EmptyValuesDisappear"}},
	{Name: "keys-alias", What: "ListKeys returns the slice the store keeps its keys in, and Delete shifts it in place",
		Catches: []string{"ResultsAreTheCallersOwn"}},
	{Name: "index-keys-alias", What: "IndexKeys returns the slice the index keeps, and writes change it later",
		Catches: []string{"ResultsAreTheCallersOwn"}},
	{Name: "key-error-ignored", What: "Add and Update ignore the key function's error and store the object under an empty key",
		Catches: []string{"KeyErrorRejectsWrite"}},
	{Name: "index-error-half-applied", What: "Add stores the object before running the IndexFuncs, and returns their error after",
		Catches: []string{"FailingIndexFuncRejectsWrite"}},
	{Name: "replace-keeps-old-indexes", What: "Replace swaps the objects but files the new ones into the old indexes without clearing them",
		Catches: []string{"ReplaceSwapsWholeContents"}},
	{Name: "replace-duplicate-key-twice", What: "Replace files every object of the list as new, so a key listed twice is kept twice and its first object's index values stay",
		Catches: []string{"MatchesInformerlabOnRandomSequences"}},
	{Name: "delete-unindexes-given-object", What: "Delete takes the values to unfile from the object it is passed, not the one stored under its key",
		Catches: []string{"MatchesInformerlabOnRandomSequences"}},
	{Name: "replace-not-atomic", What: "Replace clears the store and adds the objects one by one, stopping at the first error",
		Catches: []string{"ReplaceIsAllOrNothing"}},
	{Name: "addindexers-ignores-stored", What: "AddIndexers registers the IndexFunc but files only objects added afterwards",
		Catches: []string{"AddIndexersFilesStoredObjects"}},
	{Name: "addindexers-overwrites", What: "AddIndexers with a name in use replaces the existing index",
		Catches: []string{"AddIndexersRejectsTakenName"}},
	{Name: "index-returns-duplicates", What: "Index returns an object once per value it shares with the probe",
		Catches: []string{"MultiValuedIndexFilesUnderEveryValue"}},
	{Name: "unknown-index-empty", What: "ByIndex, IndexKeys and Index on an unknown index return nothing, not an error",
		Catches: []string{"UnknownIndexIsAnError"}},
	{Name: "no-lock", What: "the store has no lock: its maps are written from many goroutines at once", NeedsRace: true,
		Catches: []string{"SafeForConcurrentUse"}},
}

// learnerIndexer is lab 1 as the README's hints build it — objects by key,
// IndexFuncs by name, and for each index the keys filed under each value,
// behind one lock — with one mistake switched on by name.
type learnerIndexer struct {
	mistake  string
	keyFunc  indexer.KeyFunc
	mu       sync.RWMutex // guards every field below
	items    map[string]any
	indexers indexer.Indexers
	indices  map[string]map[string]map[string]bool // index → value → keys
	keys     []string                              // every key, in order of arrival (keys-alias)
	lists    map[string][]string                   // index/value → keys, as IndexKeys returned them (index-keys-alias)
}

func newLearnerIndexer(mistake string, kf indexer.KeyFunc, ix indexer.Indexers) indexersuite.Indexer {
	l := &learnerIndexer{mistake: mistake, keyFunc: kf, items: map[string]any{}, indexers: indexer.Indexers{},
		indices: map[string]map[string]map[string]bool{}, lists: map[string][]string{}}
	for name, fn := range ix {
		l.indexers[name] = fn
		l.indices[name] = map[string]map[string]bool{}
	}
	return l
}

func (l *learnerIndexer) lock() func() {
	if l.mistake == "no-lock" {
		return func() {}
	}
	l.mu.Lock()
	return l.mu.Unlock
}

func (l *learnerIndexer) rlock() func() {
	if l.mistake == "no-lock" {
		return func() {}
	}
	l.mu.RLock()
	return l.mu.RUnlock
}

// valuesOf runs every IndexFunc on obj.
func (l *learnerIndexer) valuesOf(obj any) (map[string][]string, error) {
	values := map[string][]string{}
	for name, fn := range l.indexers {
		v, err := fn(obj)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", name, err)
		}
		values[name] = v
	}
	return values, nil
}

func (l *learnerIndexer) Add(obj any) error {
	defer l.lock()()
	key, err := l.keyFunc(obj)
	if err != nil && l.mistake != "key-error-ignored" {
		return err
	}
	if l.mistake == "index-error-half-applied" {
		old, had := l.items[key]
		l.items[key] = obj
		values, err := l.valuesOf(obj)
		if err != nil {
			return err
		}
		l.storeLocked(key, old, had, obj, values)
		return nil
	}
	values, err := l.valuesOf(obj)
	if err != nil {
		return err
	}
	old, had := l.items[key]
	l.storeLocked(key, old, had, obj, values)
	return nil
}

func (l *learnerIndexer) storeLocked(key string, old any, had bool, obj any, values map[string][]string) {
	if had && l.mistake != "update-leaves-stale-value" {
		l.unindexLocked(key, old)
	}
	if !had {
		l.keys = append(l.keys, key)
	}
	l.items[key] = obj
	for name, vs := range values {
		for _, v := range vs {
			if l.indices[name][v] == nil {
				l.indices[name][v] = map[string]bool{}
			}
			l.indices[name][v][key] = true
			l.lists[name+"/"+v] = appendOnce(l.lists[name+"/"+v], key)
		}
	}
}

func appendOnce(keys []string, key string) []string {
	if slices.Contains(keys, key) {
		return keys
	}
	return append(keys, key)
}

// unindexLocked removes key from the values old was filed under (Hint 2:
// the IndexFuncs run again on the old object).
func (l *learnerIndexer) unindexLocked(key string, old any) {
	for name, fn := range l.indexers {
		vs, _ := fn(old)
		for _, v := range vs {
			delete(l.indices[name][v], key)
			if len(l.indices[name][v]) == 0 && l.mistake != "empty-values-kept" {
				delete(l.indices[name], v)
			}
			list := l.lists[name+"/"+v]
			if i := slices.Index(list, key); i >= 0 {
				l.lists[name+"/"+v] = slices.Delete(list, i, i+1)
			}
		}
	}
}

func (l *learnerIndexer) Update(obj any) error { return l.Add(obj) }

func (l *learnerIndexer) Delete(obj any) error {
	defer l.lock()()
	key, err := l.keyFunc(obj)
	if err != nil {
		return err
	}
	old, ok := l.items[key]
	if !ok {
		return nil
	}
	delete(l.items, key)
	if i := slices.Index(l.keys, key); i >= 0 {
		l.keys = slices.Delete(l.keys, i, i+1) // shifts in place
	}
	if l.mistake == "delete-unindexes-given-object" {
		old = obj // the IndexFuncs run on the object passed, not the one stored
	}
	if l.mistake != "delete-keeps-index" {
		l.unindexLocked(key, old)
	}
	return nil
}

func (l *learnerIndexer) List() []any {
	defer l.rlock()()
	var out []any
	for _, o := range l.items {
		out = append(out, o)
	}
	return out
}

func (l *learnerIndexer) ListKeys() []string {
	defer l.rlock()()
	if l.mistake == "keys-alias" {
		return l.keys
	}
	return slices.Clone(l.keys)
}

func (l *learnerIndexer) Get(obj any) (any, bool, error) {
	key, err := l.keyFunc(obj)
	if err != nil {
		return nil, false, err
	}
	return l.GetByKey(key)
}

func (l *learnerIndexer) GetByKey(key string) (any, bool, error) {
	defer l.rlock()()
	o, ok := l.items[key]
	return o, ok, nil
}

func (l *learnerIndexer) Replace(list []any, _ string) error {
	defer l.lock()()
	if l.mistake == "replace-not-atomic" {
		l.items, l.keys = map[string]any{}, nil
		for name := range l.indices {
			l.indices[name] = map[string]map[string]bool{}
		}
		l.lists = map[string][]string{}
		for _, o := range list {
			key, err := l.keyFunc(o)
			if err != nil {
				return err
			}
			values, err := l.valuesOf(o)
			if err != nil {
				return err
			}
			l.storeLocked(key, nil, false, o, values)
		}
		return nil
	}
	// Hint 3: build the new maps on the side, swap them in at the end.
	type entry struct {
		key    string
		obj    any
		values map[string][]string
	}
	var entries []entry
	for _, o := range list {
		key, err := l.keyFunc(o)
		if err != nil {
			return err
		}
		values, err := l.valuesOf(o)
		if err != nil {
			return err
		}
		entries = append(entries, entry{key, o, values})
	}
	l.items, l.keys = map[string]any{}, nil
	if l.mistake != "replace-keeps-old-indexes" {
		for name := range l.indices {
			l.indices[name] = map[string]map[string]bool{}
		}
		l.lists = map[string][]string{}
	}
	for _, e := range entries {
		old, had := l.items[e.key] // a key listed twice: the later object wins
		if l.mistake == "replace-duplicate-key-twice" {
			had = false
		}
		l.storeLocked(e.key, old, had, e.obj, e.values)
	}
	return nil
}

var errUnknownIndex = errors.New("no such index")

func (l *learnerIndexer) Index(indexName string, obj any) ([]any, error) {
	defer l.rlock()()
	fn, ok := l.indexers[indexName]
	if !ok {
		if l.mistake == "unknown-index-empty" {
			return nil, nil
		}
		return nil, errUnknownIndex
	}
	vs, err := fn(obj)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []any
	for _, v := range vs {
		for key := range l.indices[indexName][v] {
			if seen[key] && l.mistake != "index-returns-duplicates" {
				continue
			}
			seen[key] = true
			out = append(out, l.items[key])
		}
	}
	return out, nil
}

func (l *learnerIndexer) IndexKeys(indexName, value string) ([]string, error) {
	defer l.rlock()()
	if _, ok := l.indexers[indexName]; !ok {
		if l.mistake == "unknown-index-empty" {
			return nil, nil
		}
		return nil, errUnknownIndex
	}
	if l.mistake == "index-keys-alias" {
		return l.lists[indexName+"/"+value], nil
	}
	var keys []string
	for key := range l.indices[indexName][value] {
		keys = append(keys, key)
	}
	return keys, nil
}

func (l *learnerIndexer) ListIndexFuncValues(indexName string) []string {
	defer l.rlock()()
	var values []string
	for v := range l.indices[indexName] {
		values = append(values, v)
	}
	return values
}

func (l *learnerIndexer) ByIndex(indexName, value string) ([]any, error) {
	keys, err := l.IndexKeys(indexName, value)
	if err != nil || keys == nil {
		return nil, err
	}
	defer l.rlock()()
	var out []any
	for _, key := range keys {
		out = append(out, l.items[key])
	}
	return out, nil
}

func (l *learnerIndexer) AddIndexers(newIndexers indexer.Indexers) error {
	defer l.lock()()
	for name := range newIndexers {
		if _, taken := l.indexers[name]; taken && l.mistake != "addindexers-overwrites" {
			return fmt.Errorf("index %s already exists", name)
		}
	}
	for name, fn := range newIndexers {
		l.indexers[name] = fn
		l.indices[name] = map[string]map[string]bool{}
		if l.mistake == "addindexers-ignores-stored" {
			continue
		}
		for key, o := range l.items {
			vs, err := fn(o)
			if err != nil {
				return err
			}
			for _, v := range vs {
				if l.indices[name][v] == nil {
					l.indices[name][v] = map[string]bool{}
				}
				l.indices[name][v][key] = true
				l.lists[name+"/"+v] = appendOnce(l.lists[name+"/"+v], key)
			}
		}
	}
	return nil
}

func learnerImpl(mistake string) indexersuite.Impl {
	return indexersuite.Impl{NewIndexer: func(kf indexer.KeyFunc, ix indexer.Indexers) indexersuite.Indexer {
		return newLearnerIndexer(mistake, kf, ix)
	}}
}

// TestHelperMutant grades one mutant, in the child process CatchesMistakes
// starts.
func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, indexersuite.Behaviours(learnerImpl(name)))
	}
}

func TestLearnerIndexerWithoutMistakePasses(t *testing.T) {
	grade.Reference(t, indexersuite.Behaviours(learnerImpl("")))
}

func TestSuiteCatchesEveryMistake(t *testing.T) {
	grade.CatchesMistakes(t, "TestHelperMutant", catalogue)
}
