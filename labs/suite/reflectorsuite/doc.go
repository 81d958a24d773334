// Package reflectorsuite is the graded behaviour of a Reflector (diagram
// steps 1 and 2): the loop that lists a resource, watches it from the
// list's resourceVersion, and writes what it learns into a Store.
//
// [Behaviours] runs each behaviour against informerlab's in-memory API
// server, fakeapi, inside a testing/synctest bubble, with a Store that
// records every write. They check the happy path (list → Replace, a watch
// from exactly the list's resourceVersion, events → Add/Update/Delete,
// bookmarks) and the recoveries that make an informer trustworthy: a
// cleanly closed watch resumes from the last resourceVersion without a
// relist, at the same instant (only a watch that ended at once with no
// event waits a backoff); a 410 Gone (history compacted, or an ERROR event) forces a
// relist, after a backoff and at the last resourceVersion, that reveals
// what the watch missed; a 429 re-watches without a relist; a watch that
// ends at once is backed off; a failing list is retried after delays that
// grow; every watch is stopped; LastSyncResourceVersion is read on real
// goroutines, outside the bubble, so that -race sees an unguarded field;
// and Run returns when its context is cancelled, whatever it was doing.
//
// A model behaviour (model.go) plays seeded random sequences of what a
// server does to the Reflector graded and to informerlab's, each in its
// own world, and compares after every step what each did at that instant
// and over the next ten minutes, the store and LastSyncResourceVersion,
// never how long a backoff lasted; a difference is shrunk and printed with
// its seed.
//
// informerlab's reflector runs this suite in reflector/suite_test.go;
// labs/5-reflector grades a learner's Reflector with it.
package reflectorsuite
