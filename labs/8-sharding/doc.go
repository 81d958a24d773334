// Package shardinglab is lab 8: write the reconcile guard of a sharded
// controller and its release protocol. See README.md; grade it with
// `go test` in this directory.
//
// A ring of replicas shares B buckets of keys; a Lease per bucket says which
// replica may act on it. The guard is what makes that true in the
// reconciler: it runs a key only while the key's bucket is held, synced,
// freshly renewed and not being released, and it counts the bucket's
// reconciles in flight, so a graceful release hands the bucket over only
// once every admitted reconcile has ended. Get it wrong and two replicas
// reconcile one key, or a key is lost in a hand-over.
//
// Your code goes in guard.go; TestGrade (grade_test.go) grades it with
// labs/suite/shardingsuite, the suite informerlab's own BucketGuard passes.
package shardinglab
