// Package informersuite is the graded behaviour of a shared informer
// (diagram steps 3 to 6): the process loop that pops the queue into the
// cache, and the per-handler listeners that tell every handler about it.
//
// [Behaviours] runs each behaviour against informerlab's in-memory API
// server, fakeapi, inside a testing/synctest bubble, with handlers that
// record every call. They check that the cache holds the list once
// HasSynced says so, and that HasSynced says so no sooner; that the
// initial list arrives as OnAdd(obj, true) and live changes as OnAdd,
// OnUpdate(old, new) and OnDelete, in order; that the cache is written
// before any handler hears of the change; that
// a deletion only a relist noticed arrives as a DeletedFinalStateUnknown
// tombstone and the relist's other findings as adds and updates; that a
// slow handler holds up nobody else, even 2,000 changes behind; that a
// late handler gets the cache first, and misses no change the loop had
// in hand when it was added; that handlers added from other goroutines while objects change
// all end with the server's state; and that cancelling Run stops
// everything. The slow-handler and concurrent behaviours run outside a
// synctest bubble, on real goroutines, so that -race sees what they do.
//
// Races that -race cannot see (a handler told before the cache is
// written, a late handler's replay listed without holding off the loop,
// HasSynced turning true before the last listed object is cached) are
// opened wide on purpose: the watched objects are wrapped so that their
// GetNamespace, which the cache's key function calls, holds the process
// loop just before it writes the cache (see windows.go), and an index
// function asks HasSynced at every cache write.
//
// The informer can be built on informerlab's reflector, deltafifo and
// indexer: the suite grades the loop and the listeners, not those.
// informerlab's informer runs this suite in informer/suite_test.go;
// labs/6-informer grades a learner's informer with it.
package informersuite
