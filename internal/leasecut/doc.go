// Package leasecut kills a sharded replica the way a crash does, without a
// second process: it wraps the replica's Lease client, and once Cut is
// called every call fails, so the replica neither renews nor releases its
// Leases. The other replicas then see its Leases expire after LeaseDuration
// and take its buckets, as they would after a SIGKILL. (A graceful stop
// releases the Leases at once, which is the other path the ring knows.)
//
//	replica --Get/Create/Update/List--> leasecut.Client --> API server
//	                                         | Cut()
//	                                         v
//	                                    every call: ErrCut
//
// The sharded demo (internal/demoengine) and the sharded sample
// controller's tests use it.
//
// # Read next
//
// Run the Example (go test ./internal/leasecut -run Example -v), then read
// the Sharding section of package controller's doc.
package leasecut
