// Package informersuite is the graded behaviour of a shared informer
// (diagram steps 3 to 6): the process loop that pops the queue into the
// cache, and the per-handler listeners that tell every handler about it.
//
// [Behaviours] runs each behaviour against informerlab's in-memory API
// server, fakeapi, inside a testing/synctest bubble, with handlers that
// record every call. They check that the cache holds the list once
// HasSynced says so; that the initial list arrives as OnAdd(obj, true)
// and live changes as OnAdd, OnUpdate(old, new) and OnDelete, in order;
// that the cache is written before any handler hears of the change; that
// a deletion only a relist noticed arrives as a DeletedFinalStateUnknown
// tombstone and the relist's other findings as adds and updates; that a
// slow handler holds up nobody else, even 2,000 changes behind; that a late handler gets the cache
// first; that handlers added from other goroutines while objects change
// all end with the server's state; and that cancelling Run stops
// everything. The slow-handler and concurrent behaviours run outside a
// synctest bubble, on real goroutines, so that -race sees what they do.
//
// The informer can be built on informerlab's reflector, deltafifo and
// indexer: the suite grades the loop and the listeners, not those.
// informerlab's informer runs this suite in informer/suite_test.go;
// labs/6-informer grades a learner's informer with it.
package informersuite
