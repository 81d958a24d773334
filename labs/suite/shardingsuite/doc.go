// Package shardingsuite is the graded behaviour of the reconcile guard of a
// sharded controller: the table a member keeps of what it may do with each
// bucket of keys, and the count of each bucket's reconciles in flight.
//
// The protocol around the guard (member Leases, the rendezvous ring, bucket
// Leases, the cache's shard selector) is informerlab's; the guard is what
// turns it into "never two replicas on one key": it admits a key only while
// its bucket is held, synced, freshly renewed and not being released, and a
// graceful release hands the bucket over only once every admitted reconcile
// has ended. Each behaviour drives a guard through one step of the protocol
// (docs/sharding.md, "The bucket protocol, step by step") and checks what
// Admit, Release and the wrapped Reconciler do. Time-dependent behaviours
// run in testing/synctest bubbles, so RenewDeadline is checked exactly;
// the one that checks the monotonic clock runs on the real clock, with
// attempt times whose wall reading was stepped an hour (clock.go).
//
// A guard that checks "held" and counts the reconcile in two lock sections
// is no data race, and its window is nanoseconds wide, so
// ReleaseNeverOverlapsARunningKey runs real goroutines for three seconds:
// two workers reconcile one bucket's keys while the protocol side asks
// Release again and again, and a monitor (monitor.go) records every
// reconcile's start and end and every release under one lock, failing at
// the first moment a release reports true with a reconcile running or a
// key starts on a bucket given away.
//
// informerlab's controller runs this suite in controller/sharding/suite_test.go;
// labs/8-sharding grades a learner's guard with it.
package shardingsuite
