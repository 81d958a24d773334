// Package sharding splits one controller's work over a ring of replicas:
// each caches (steps 1 to 5) and reconciles (steps 8 and 9) only its share
// of the objects, and no key is ever reconciled by two replicas at once.
//
//	replica A: Member --holds buckets 0-5--> informer shardSelector(0-5) --> guarded Reconcile
//	replica B: Member --holds buckets 6-10-> informer shardSelector(6-10) -> guarded Reconcile
//	replica C: Member --holds 11-15-------> ...
//	              every Lease labelled informerlab.dev/ring=<ring>
//
// # How it works
//
// Leader election makes one replica do all the work while the others wait.
// When one replica's cache or reconcile rate is not enough, a ring of
// replicas can share the work instead: each caches and reconciles only its
// share of the objects, and no key is ever reconciled by two of them at
// once. A [Member] per replica runs the protocol; [Member.Guard]
// wraps the Reconciler.
//
// The pieces:
//
//   - B fixed buckets (Options.Buckets, [DefaultBuckets] = 16):
//     bucket i holds the objects whose uid's 64-bit FNV-1a hash h has
//     i·2⁶⁴/B ≤ h < (i+1)·2⁶⁴/B ([BucketOf]). It is the hash kube-apiserver
//     applies to a shardSelector, so [ShardSelectorFor] turns a set of
//     buckets into the expression a sharded informer sends and the server
//     filters with (or the informer re-checks, if the server ignores it).
//   - A member Lease per replica, <ring>-member-<identity>. The live members
//     are those whose Lease changed less than its duration ago.
//   - The ring: from the live members every member computes the same bucket
//     → member map by rendezvous hashing with bounded loads ([BucketOwners]):
//     each member holds ⌊B/N⌋ or ⌈B/N⌉ buckets, and a member joining or
//     leaving moves about B/N of them. The ring says who should own a
//     bucket.
//   - A Lease per bucket, <ring>-bucket-<i>, says who may. Members that
//     briefly disagree about the ring cannot both hold it. A bucket Lease is
//     written only when it changes hands: its holder is valid while the
//     holder's member Lease is, so at rest a ring writes one Lease per
//     member per RetryPeriod, whatever B. Every Lease of a
//     ring carries the label [RingLabel] (informerlab.dev/ring=<ring>), so
//     one labelled list shows a member the whole ring, and shows a person
//     who holds which bucket.
//
// Every RetryPeriod a member renews its member Lease, lists the ring's
// Leases, computes the map, confirms the buckets it holds (their Lease still
// names it in a list read after the renewal: they count as renewed when the
// renewal started), and then:
//
//  1. Gain. For a bucket the map gives it: acquire the bucket's Lease, a
//     write with the resourceVersion listed (a free one at once, one held by
//     another only once that holder's member Lease has not changed for
//     LeaseDuration),
//     then widen the cache's selector ([Cache]; [InformerCache] for
//     an informer: its Reflector lists only the gained bucket and adds its
//     objects, see reflector.WidenedShard), wait until the cache holds the
//     bucket's objects, and only then admit the bucket's keys. Keys that
//     arrive earlier, from that very list, are requeued, not run: a
//     reconcile from a cache that has not caught up could undo the last
//     owner's work. An [AdmitSource] brings them at the admission.
//  2. Graceful release. For a held bucket the map gives to another: stop
//     admitting its keys; wait until its in-flight reconciles reach 0 (still
//     holding the Lease; after ReleaseTimeout keep the Lease and wait
//     again); release the Lease (holder cleared), so the new owner takes it
//     at its next try; narrow the selector (the lost objects become
//     deletes). A member that stops does this for every bucket, then
//     releases its member Lease.
//  3. Crash. A member that stops renewing loses nothing at once. The others
//     drop it from the ring when its member Lease has not changed for
//     LeaseDuration, by their own clocks, and then take its buckets.
//     A member that could not confirm a bucket for RenewDeadline drops it
//     without writing, and takes it back only by a write.
//  4. The guard. A key runs only if its bucket (from the cached object's uid,
//     [BucketFromCache], or a deleted object's, [Tombstones]) is held,
//     synced, not being released, and was confirmed by a member renewal
//     that started less than RenewDeadline ago on the local monotonic clock;
//     it counts the bucket's in-flight reconciles. Since RenewDeadline <
//     LeaseDuration, a member whose renewals stopped (crashed, partitioned,
//     paused) refuses new keys before anyone else may take its buckets.
//     The check and the count are one [BucketGuard], under one lock, so a
//     release that has begun sees every reconcile that was admitted.
//
// Children. A shard selector hashes an object's own uid, so it cannot put
// a child (a Foo's Deployment) in its owner's bucket. The owner's
// controller labels each child with the owner's bucket, and the children's
// informer is selected by that label: [InformerBucketLabelCache] turns the
// member's shard selector back into buckets ([BucketsOfShardSelector]) and
// sets the label selector "<label> in (3,4,9)" ([BucketLabelSelector]);
// [Caches] lets one member drive the owners' cache and the children's,
// and admit a bucket only once both hold it.
//
// Warm buckets. With Options.Warm a member's cache also holds the buckets
// it would gain if any one other member left ([RunnerUpBuckets]), and
// those the ring gives it while it does not hold them: about twice a share
// of memory. A crashed member's buckets are then already
// cached by the survivors, so a gained bucket is admitted after one list of
// that bucket alone ([WarmCache].ConfirmShare: the cache must have seen the
// previous holder's last writes), not a change of selector; the
// new ring's runner-up buckets are cached after that. Since no relist brings
// the gained keys, an [AdmitSource] on the controller brings them
// (Options.OnAdmit).
//
// docs/sharding.md walks through these steps with a test for each;
// labs/8-sharding has you write the BucketGuard.
//
// The honest limit: a Lease is no fence. The guard checks at the start of a
// reconcile; a replica paused in the middle of one (a long GC, SIGSTOP, a
// frozen VM) resumes and finishes it after its Lease has passed to another,
// and nothing in the Lease stops its writes. What stops them is the API
// server's optimistic concurrency: write with the resourceVersion you read
// (Update, not a blind Patch), so a write based on a read from before the
// new owner's writes fails with a Conflict; and give children deterministic
// names, so a second create fails with AlreadyExists. client-go's leader
// election has the same limit and says so. The test
// TestShardLeaseIsNoFencePausedWriteStoppedOnlyByResourceVersion shows a
// paused replica's write refused with a Conflict, and the same write sent
// blind accepted.
//
// # Guarantees
//
//   - With a ring of [Member]s and guarded Reconcilers, a bucket is
//     admitted by at most one member at any instant (as long as no clock
//     runs faster than another by LeaseDuration/RenewDeadline or more), so
//     no key is reconciled by two members at once except a reconcile already
//     in flight when its member was paused (see the limit above).
//   - A member that stops cleanly releases every bucket only after its
//     in-flight reconciles finished, then its member Lease.
//   - Member and BucketGuard are safe for concurrent use.
//
// # Differences from upstream
//
// client-go and controller-runtime have no sharding at v0.37.2 (kube-apiserver
// 1.37 serves the shardSelector behind the ShardedListAndWatch gate). The
// protocol here is this project's; docs/sharding.md compares it with
// Knative's bucketed leader election and timebertt's sharding controller.
//
// # Read next
//
//	go test ./controller/sharding -run 'ExampleShardSelectorFor|ExampleBucketOwners|ExampleRunnerUpBuckets|Example_shardedManager' -v
//	go test ./controller/sharding -run 'TestShardRing|TestShardGuard|TestShardedReplicas|TestInformerShardCache|TestShardLease' -v
//	go test ./controller/sharding -run 'TestRunnerUpBuckets|TestWarmReplicas|TestWarmCache|TestWarmMember' -v
//	go test ./controller/sharding -run 'TestBucketsOfShardSelector|TestBucketLabelSelector|TestInformerBucketLabelCache|TestShardCaches' -v
//
// Next: samplecontroller's sharded Foo controller (`--ring`), and lab 8,
// where you write the BucketGuard.
package sharding
