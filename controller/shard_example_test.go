package controller_test

import (
	"context"
	"fmt"
	"log"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// A replica's share is a set of buckets; its informer asks the server for
// them with one shard selector, adjacent buckets merged into one range.
func ExampleShardSelectorFor() {
	expr, err := controller.ShardSelectorFor([]int{0, 1, 15}, 16)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(expr)
	fmt.Println("bucket of uid 6f1c0000-0000-4000-8000-000000000000:", controller.BucketOf("6f1c0000-0000-4000-8000-000000000000", 16))
	// Output:
	// shardRange(object.metadata.uid, '0x0000000000000000', '0x2000000000000000') || shardRange(object.metadata.uid, '0xf000000000000000', '0x10000000000000000')
	// bucket of uid 6f1c0000-0000-4000-8000-000000000000: 6
}

// Every member computes the same owners from the same live members; a fourth
// member takes buckets only for itself.
func ExampleBucketOwners() {
	three := controller.BucketOwners([]string{"replica-0", "replica-1", "replica-2"}, 16)
	four := controller.BucketOwners([]string{"replica-0", "replica-1", "replica-2", "replica-3"}, 16)
	for b := range three {
		if three[b] != four[b] {
			fmt.Printf("bucket %2d: %s -> %s\n", b, three[b], four[b])
		}
	}
	// Output:
	// bucket  1: replica-0 -> replica-3
	// bucket  5: replica-0 -> replica-3
	// bucket  6: replica-2 -> replica-3
	// bucket  7: replica-1 -> replica-3
	// bucket 10: replica-2 -> replica-3
	// bucket 13: replica-1 -> replica-3
	// bucket 15: replica-0 -> replica-3
}

// One replica of a sharded ConfigMap controller: a member of the ring "cms",
// an informer whose shard selector the member drives, and a controller whose
// Reconciler runs behind the member's guard. Run one per process, each with
// its own identity; they share the buckets among themselves.
func Example_shardedReplica() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	configMaps := srv.Resource(cmGVR)
	none, _ := controller.ShardSelectorFor(nil, controller.DefaultShardBuckets)
	inf := informer.NewSharedIndexInformer(configMaps, exampleCM(), 0, nil)
	if err := inf.SetShardSelector(none); err != nil { // no bucket until the ring says so
		log.Fatal(err)
	}
	cache, err := controller.InformerShardCache(inf, configMaps)
	if err != nil {
		log.Fatal(err)
	}
	member, err := controller.NewShardMember(controller.ShardOptions{
		Client:   srv.Resource(leaseGVR).Namespace("kube-system"),
		Ring:     "cms",
		Identity: "replica-0",
		Cache:    cache,
	})
	if err != nil {
		log.Fatal(err)
	}
	reconcile := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		fmt.Println("reconciling", req) // only keys of buckets this replica holds
		return controller.Result{}, nil
	})
	c, err := controller.New("cms", member.Guard(reconcile, controller.BucketFromCache(inf.GetIndexer(), member.Buckets())), controller.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{})); err != nil {
		log.Fatal(err)
	}
	go inf.Run(ctx)
	go func() { _ = member.Start(ctx) }() // releases its buckets when ctx ends
	go func() { _ = c.Start(ctx) }()
}
