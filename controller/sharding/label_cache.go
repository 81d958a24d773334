package sharding

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// A shard selector hashes an object's own uid, so it cannot select a
// child by its owner: a Foo's Deployment has a uid of its own, in another
// bucket. The controller that creates a child therefore labels it with its
// owner's bucket (the label never changes, since the owner's uid does not),
// and the children's informer is driven by a label selector built from the
// same held buckets: InformerBucketLabelCache. Caches lets one member
// drive both caches.

// bucketLabelCache is the Cache of an informer of children labelled
// with their owner's bucket.
type bucketLabelCache struct {
	*informerShardCache
	label   string
	buckets int
}

// InformerBucketLabelCache returns the [Cache] of an informer of
// children that carry their owner's bucket in label (as a decimal number,
// 0 to buckets-1). It is told the same shard selector as the owners' cache
// (the [ShardSelectorFor] of the held buckets), turns it back into the
// buckets ([BucketsOfShardSelector]) and sets the informer's label selector
// to [BucketLabelSelector] of them — "label in (3,4,9)", or a selector that
// matches nothing when no bucket is held; "" (every object) sets no label
// selector. It returns once the informer's cache holds exactly the children
// so labelled, by the same reference-list wait as [InformerCache]: a
// list of that label selector through lw, and the cache at least as new as
// it, with nothing else in it.
//
// A child without the label is in no replica's share: the controller that
// creates children must label them all (see the sample controller's Foo
// controller, which also labels a child it finds unlabelled).
//
// It registers an event handler on inf. The informer should start with the
// no-bucket selector (BucketLabelSelector(label, nil)), so that it caches
// nothing until the member holds a bucket.
func InformerBucketLabelCache(inf informer.SharedIndexInformer, lw reflector.ListerWatcher, label string, buckets int) (Cache, error) {
	if buckets < 1 {
		return nil, fmt.Errorf("controller: bucket label cache: %d buckets (want at least 1)", buckets)
	}
	if _, err := labels.Parse(label); err != nil || label == "" {
		return nil, fmt.Errorf("controller: bucket label cache: invalid label %q", label)
	}
	c, err := InformerCache(inf, lw)
	if err != nil {
		return nil, err
	}
	return &bucketLabelCache{informerShardCache: c.(*informerShardCache), label: label, buckets: buckets}, nil
}

func (c *bucketLabelCache) SetShardSelector(ctx context.Context, expr string) error {
	held, err := BucketsOfShardSelector(expr, c.buckets)
	if err != nil {
		return fmt.Errorf("controller: bucket label cache: %w", err)
	}
	sel := BucketLabelSelector(c.label, held)
	if expr == "" {
		sel = ""
	}
	ls, err := labels.Parse(sel)
	if err != nil {
		return fmt.Errorf("controller: bucket label cache: %w", err)
	}
	if err := c.inf.SetLabelSelector(sel); err != nil {
		return fmt.Errorf("controller: bucket label cache: %w", err)
	}
	return c.waitForShare(ctx, metav1.ListOptions{LabelSelector: sel}, func(obj runtime.Object) bool {
		m, err := meta.Accessor(obj)
		return err == nil && ls.Matches(labels.Set(m.GetLabels()))
	})
}

// Caches returns one [Cache] that drives several: a member's
// Options.Cache is one cache, and a sharded controller has one per
// informer it shards (the owners' [InformerCache], the children's
// [InformerBucketLabelCache]). SetShardSelector tells every cache the
// selector at once, each on its own goroutine, and returns when all have
// returned: nil when every cache holds its share, otherwise the errors,
// joined. A member retries the whole call, which is harmless: a cache told
// the selector it already has only checks its share again.
func Caches(caches ...Cache) Cache {
	return CacheFunc(func(ctx context.Context, expr string) error {
		errs := make([]error, len(caches))
		var wg sync.WaitGroup
		for i, c := range caches {
			wg.Go(func() { errs[i] = c.SetShardSelector(ctx, expr) })
		}
		wg.Wait()
		return errors.Join(errs...)
	})
}
