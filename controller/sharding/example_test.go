package sharding_test

import (
	"context"
	"fmt"
	"log"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/builder"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/reflector"
)

// A replica's share is a set of buckets; its informer asks the server for
// them with one shard selector, adjacent buckets merged into one range.
func ExampleShardSelectorFor() {
	expr, err := sharding.ShardSelectorFor([]int{0, 1, 15}, 16)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(expr)
	fmt.Println("bucket of uid 6f1c0000-0000-4000-8000-000000000000:", sharding.BucketOf("6f1c0000-0000-4000-8000-000000000000", 16))
	// Output:
	// shardRange(object.metadata.uid, '0x0000000000000000', '0x2000000000000000') || shardRange(object.metadata.uid, '0xf000000000000000', '0x10000000000000000')
	// bucket of uid 6f1c0000-0000-4000-8000-000000000000: 6
}

// Every member computes the same owners from the same live members; a fourth
// member takes its fair share, four of sixteen, and one more bucket moves
// between the others so that each of the four holds four.
func ExampleBucketOwners() {
	three := sharding.BucketOwners([]string{"replica-0", "replica-1", "replica-2"}, 16)
	four := sharding.BucketOwners([]string{"replica-0", "replica-1", "replica-2", "replica-3"}, 16)
	for b := range three {
		if three[b] != four[b] {
			fmt.Printf("bucket %2d: %s -> %s\n", b, three[b], four[b])
		}
	}
	// Output:
	// bucket  1: replica-1 -> replica-2
	// bucket  5: replica-0 -> replica-3
	// bucket  6: replica-2 -> replica-3
	// bucket 10: replica-2 -> replica-3
	// bucket 15: replica-0 -> replica-3
}

// What a warm member caches besides its own buckets: the buckets it would
// own if any one other member left. Those of the member that leaves are
// spread over the others, so a takeover after a crash finds every gained
// bucket already cached, and only confirms it.
func ExampleRunnerUpBuckets() {
	ring := []string{"replica-0", "replica-1", "replica-2"}
	owners := sharding.BucketOwners(ring, 16)
	for _, m := range ring {
		var own []int
		for b, o := range owners {
			if o == m {
				own = append(own, b)
			}
		}
		fmt.Printf("%s owns %v, is runner-up for %v\n", m, own, sharding.RunnerUpBuckets(ring, m, 16))
	}
	// Output:
	// replica-0 owns [4 5 8 9 14 15], is runner-up for [0 1 3 10 11 12]
	// replica-1 owns [0 1 2 7 13], is runner-up for [4 5 6 9 14 15]
	// replica-2 owns [3 6 10 11 12], is runner-up for [1 2 7 8 9 13]
}

// One replica of a sharded ConfigMap controller, run by a Manager: a member
// of the ring "cms", the Manager's ConfigMap informer, whose shard selector
// the member drives, and a controller whose Reconciler runs behind the
// member's guard. Alone in the ring, it gains all sixteen buckets: it
// acquires their Leases, widens its informer's selector from none to all,
// waits for the relist, and only then reconciles the keys. Run one per
// process, each with its own Identity, and they share the buckets.
func Example_shardedManager() {
	srv := fakeapi.New(fakeapi.Options{})
	defer srv.Close()
	cms := srv.Resource(ctrltest.CMGVR).Namespace("demo")
	for _, name := range []string{"a", "b", "c"} {
		if _, err := cms.Create(context.Background(), ctrltest.NewCM("demo", name), metav1.CreateOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	mgr, err := manager.New(manager.Options{
		NewListerWatcher: func(gvr schema.GroupVersionResource, ns string) reflector.ListerWatcher {
			return srv.Resource(gvr).Namespace(ns)
		},
		Logger: ctrltest.Quiet,
	})
	if err != nil {
		log.Fatal(err)
	}

	// The informer starts with no bucket; the member widens it.
	inf, err := mgr.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
	if err != nil {
		log.Fatal(err)
	}
	none, _ := sharding.ShardSelectorFor(nil, sharding.DefaultBuckets)
	if err := inf.SetShardSelector(none); err != nil {
		log.Fatal(err)
	}
	cache, err := sharding.InformerCache(inf, srv.Resource(ctrltest.CMGVR))
	if err != nil {
		log.Fatal(err)
	}
	member, err := sharding.NewMember(sharding.Options{
		Client:        srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system"),
		Ring:          "cms",
		Identity:      "replica-0",
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		Cache:  cache,
		Logger: ctrltest.Quiet,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := mgr.Add(member); err != nil { // runs on every replica: NeedLeaderElection is false
		log.Fatal(err)
	}

	seen := make(chan controller.Request)
	reconcile := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		seen <- req // only keys of buckets this replica may act on get here
		return controller.Result{}, nil
	})
	err = builder.New(mgr).
		For(ctrltest.CMGVR, ctrltest.ExampleCM()).
		WithOptions(controller.Options{Logger: ctrltest.Quiet}).
		Complete(member.Guard(reconcile, sharding.BucketFromCache(inf.GetIndexer(), member.Buckets())))
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- mgr.Start(ctx) }()
	var keys []string
	for range 3 {
		keys = append(keys, (<-seen).String())
	}
	sort.Strings(keys)
	fmt.Println("reconciled", keys, "holding", len(member.Held()), "buckets")
	cancel()
	fmt.Println("manager stopped, error:", <-stopped)
	obj, err := srv.Resource(ctrltest.LeasesGVR).Namespace("kube-system").Get(context.Background(), "cms-bucket-0", metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	holder, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", "holderIdentity")
	fmt.Printf("bucket 0's Lease after the stop: holder %q\n", holder)
	// Output:
	// reconciled [demo/a demo/b demo/c] holding 16 buckets
	// manager stopped, error: <nil>
	// bucket 0's Lease after the stop: holder ""
}
