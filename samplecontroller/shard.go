package samplecontroller

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/controller/sharding"
	"github.com/informerlab/informerlab/informer"
)

// BucketLabel is the label the Foo controller stamps on every Deployment it
// creates when it runs sharded: the bucket of the owning Foo (from the Foo's
// uid, [sharding.BucketOf]). A shard selector can only hash an object's
// own uid or namespace, so a child finds its owner's bucket this way, and a
// sharded replica's Deployment informer selects "informerlab.dev/bucket in
// (its buckets)": kubectl get deploy -L informerlab.dev/bucket shows the
// split. A Foo's uid never changes, so neither does its children's label.
// A Deployment without it (created by an unsharded run) is in no replica's
// cache; the Foo controller labels it when its create meets it (see
// [FooReconciler]).
const BucketLabel = "informerlab.dev/bucket"

// LeasesGVR is the resource of the Leases a sharded sample controller keeps.
var LeasesGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// sharding.Options make a sample controller one replica of a ring of replicas
// that share the Foos between them (see "Running sharded" in the package
// documentation). Every replica of a ring uses the same Ring, Buckets and
// LeaseNamespace, and its own Identity.
//
// client-go: none (sharding.Options, as a sample controller flag set).
type ShardOptions struct {
	// Ring names the ring of replicas ([sharding.Options].Ring).
	// Required.
	Ring string
	// Identity of this replica, unique in the ring. "" means the host name
	// and a random suffix.
	Identity string
	// Buckets is the fixed number of buckets. 0 means
	// sharding.DefaultBuckets.
	Buckets int
	// LeaseNamespace is where the member and bucket Leases live. "" means
	// Options.Namespace, or "default" when that is "" too.
	LeaseNamespace string
	// LeaseClient, when set, reads and writes the Leases in place of
	// api(LeasesGVR, LeaseNamespace). A test wraps it to cut a replica off
	// the Leases, as a crash would.
	LeaseClient sharding.LeaseClient
	// LeaseDuration, RenewDeadline and RetryPeriod are the Lease timings of
	// [sharding.Options]; 0 means its defaults.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Warm keeps in the caches the buckets this replica would gain if one
	// other replica left, as well as those the ring gives it
	// ([sharding.Options].Warm):
	// about twice the memory of a share, for a takeover that lists only the
	// gained buckets, once, to confirm them. Every replica of a ring may
	// choose for itself.
	Warm bool
}

// shard wires a sharding.Member around the Foo and Deployment informers: both
// start with no bucket, and as the member gains buckets it widens the Foo
// informer's shard selector and, from the same buckets, the Deployment
// informer's label selector on BucketLabel; it admits a gained bucket once
// both caches hold it. The member is added to the Manager, which runs it on
// every replica. The returned source is to be watched by the Foo
// controller: it brings the keys of a gained bucket, already cached, to its
// queue when the bucket is admitted.
func shard(mgr *manager.Manager, api API, fooInformer, depInformer informer.SharedIndexInformer, opts Options) (*sharding.Member, *sharding.AdmitSource, error) {
	so := opts.Shard
	buckets := cmpOrInt(so.Buckets, sharding.DefaultBuckets)
	none, err := sharding.ShardSelectorFor(nil, buckets)
	if err != nil {
		return nil, nil, err
	}
	if err := fooInformer.SetShardSelector(none); err != nil {
		return nil, nil, err
	}
	if err := depInformer.SetLabelSelector(sharding.BucketLabelSelector(BucketLabel, nil)); err != nil {
		return nil, nil, err
	}
	// The reference lists the caches wait for go through the same handles
	// as the informers' own lists.
	fooCache, err := sharding.InformerCache(fooInformer, api(FoosGVR, opts.Namespace))
	if err != nil {
		return nil, nil, err
	}
	depCache, err := sharding.InformerBucketLabelCache(depInformer, api(DeploymentsGVR, opts.Namespace), BucketLabel, buckets)
	if err != nil {
		return nil, nil, err
	}
	cache := sharding.Caches(fooCache, depCache)
	leases := so.LeaseClient
	if leases == nil {
		ns := cmpOr(cmpOr(so.LeaseNamespace, opts.Namespace), "default")
		leases = api(LeasesGVR, ns)
	}
	mo := sharding.Options{
		Client:        leases,
		Ring:          so.Ring,
		Identity:      so.Identity,
		Buckets:       so.Buckets,
		LeaseDuration: so.LeaseDuration,
		RenewDeadline: so.RenewDeadline,
		RetryPeriod:   so.RetryPeriod,
		Cache:         cache,
		Logger:        opts.Logger,
	}
	// Warm or cold, the keys of a bucket come to the queue when it is
	// admitted: warm, nothing else brings them; cold, the widening's adds
	// came before the admission and were put off by the guard.
	admits := sharding.NewAdmitSource(fooInformer.GetIndexer(), buckets)
	mo.Warm, mo.OnAdmit = so.Warm, admits.Admitted
	member, err := sharding.NewMember(mo)
	if err != nil {
		return nil, nil, err
	}
	if err := mgr.Add(member); err != nil {
		return nil, nil, err
	}
	return member, admits, nil
}

func cmpOrInt(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// errShard wraps an error of the sharded wiring.
func errShard(err error) error { return fmt.Errorf("samplecontroller: sharding: %w", err) }
