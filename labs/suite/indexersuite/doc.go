// Package indexersuite is the graded behaviour of an Indexer: the
// thread-safe store with named indexes that holds an informer's cache
// (diagram steps 4, 5 and 9).
//
// [Behaviours] takes an [Impl], the constructor of the implementation
// under test, and returns one grade.Behaviour per thing an Indexer must
// do: store and find by key, upsert, delete by key, file objects under
// the values of each IndexFunc and move them when an update changes a
// value, forget values nobody has, rebuild every index on Replace, add
// indexes to a full store, reject a write whose key or IndexFunc fails
// without changing anything, and stay correct under concurrent use.
//
// informerlab's own indexer runs this suite in its tests
// (indexer/suite_test.go, through grade.Reference); the lab
// labs/1-indexer runs it against a learner's implementation (through
// grade.Lab). To grade another implementation, fill in an Impl:
//
//	bs := indexersuite.Behaviours(indexersuite.Impl{
//		NewIndexer: func(kf indexer.KeyFunc, ix indexer.Indexers) indexersuite.Indexer {
//			return mystore.New(kf, ix)
//		},
//	})
//	grade.Lab(t, "my-indexer", bs)
//
// Key functions and index functions are informerlab's (indexer.KeyFunc,
// indexer.IndexFunc): the suite grades the store, not the functions.
package indexersuite
