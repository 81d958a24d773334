// Package leaderelection keeps one coordination.k8s.io/v1 Lease held by one
// candidate at a time. It decides who runs steps 7 to 9: a Manager with
// leader election runs its controllers only while its [LeaderElector] holds
// the Lease, and a shard ring keeps one elector per bucket.
//
//	candidate A --create/renew every RetryPeriod--> Lease "demo" {holder: A, renewTime}
//	candidate B --read every RetryPeriod----------> (changed less than LeaseDuration ago: wait)
//	A stops renewing -> B sees no change for LeaseDuration -> B takes the Lease
//
// # How it works
//
// [LeaderElector.Run] loops, one attempt per RetryPeriod
// ([LeaderElector.TryAcquireOrRenew]):
//
//  1. Read the Lease; create it (holding it) if it does not exist.
//  2. If another holder's record has not changed for LeaseDuration, by this
//     candidate's own clock since it first saw that record, take it over
//     (an Update carrying the resourceVersion read, so two candidates
//     cannot both succeed).
//  3. If this candidate holds it, renew it: write a new renewTime.
//  4. A leader that has not renewed for RenewDeadline stops leading; since
//     RenewDeadline < LeaseDuration it stops before anyone may take over.
//  5. On a clean stop, release the Lease (holder cleared) so a successor
//     takes it at its next attempt instead of after LeaseDuration.
//
// Expiry is judged from when a record was first seen to change, never from
// the times written in the Lease by another machine's clock.
//
// # Guarantees
//
//   - At most one candidate leads at any instant, as long as no clock runs
//     faster than another by LeaseDuration/RenewDeadline or more.
//   - A release writes only if this candidate still holds the Lease, even
//     when the answer to its last renewal was lost.
//   - LeaderElector's methods are safe to call from one goroutine at a time
//     (Run's, or a shard member's loop); IsLeading is safe from any.
//
// # Differences from client-go
//
//   - No jitter on retries (exact timings in tests); the Lease is always
//     released on a clean stop (client-go's ReleaseOnCancel), only after the
//     controllers have stopped, and a Conflict on the release reads the Lease
//     again instead of giving up.
//   - One attempt is public (TryAcquireOrRenew), so a shard ring can drive an
//     elector per bucket from its own loop.
//   - A Lease is no fence, here as in client-go: a leader paused in the
//     middle of a write may finish it after losing the Lease. Optimistic
//     concurrency (write with the resourceVersion read) is what refuses it;
//     see docs/sharding.md.
//
// client-go files: tools/leaderelection/leaderelection.go,
// tools/leaderelection/resourcelock/leaselock.go; controller-runtime
// pkg/leaderelection.
//
// # Read next
//
//	go test ./controller/leaderelection -run Example -v
//	go test ./controller/leaderelection -run 'TestOnlyLeaderReconcilesAndSuccessorTakesOverAfterStop|TestLeaderThatCannotRenewStopsBeforeSuccessorStarts' -v
//
// Next: package manager, which runs its controllers only while leading, and
// package sharding, which holds one Lease per bucket.
package leaderelection
