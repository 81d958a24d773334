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
	sel, in, err := c.labelSelector(expr)
	if err != nil {
		return err
	}
	if err := c.inf.SetLabelSelector(sel); err != nil {
		return fmt.Errorf("controller: bucket label cache: %w", err)
	}
	// As for InformerCache: a share that only gains buckets is reached when
	// the children of those buckets are cached, all the Reflector lists too
	// (reflector.WidenedLabels).
	ref, refIn, outside := &metav1.ListOptions{LabelSelector: sel}, in, in
	if from := c.forgetHeld(); from != nil {
		fromSel, _, err := c.labelSelector(*from)
		if err != nil {
			return err
		}
		if gained, ok := reflector.WidenedLabels(fromSel, sel); ok {
			ref, outside = nil, nil
			if gained != "" {
				gainedSel, err := labels.Parse(gained)
				if err != nil {
					return fmt.Errorf("controller: bucket label cache: %w", err)
				}
				ref, refIn = &metav1.ListOptions{LabelSelector: gained}, matchesLabels(gainedSel)
			}
		}
	}
	return c.reach(ctx, expr, ref, refIn, outside)
}

// ConfirmShare returns once the cache holds, at least as new as a list
// returns them now, the children of expr's buckets: one reference list of
// those children only. The informer's label selector is left as it is, and
// must already cover them.
func (c *bucketLabelCache) ConfirmShare(ctx context.Context, expr string) error {
	sel, in, err := c.labelSelector(expr)
	if err != nil {
		return err
	}
	return c.waitForShare(ctx, metav1.ListOptions{LabelSelector: sel}, in, nil)
}

// labelSelector turns a shard selector of buckets into the label selector
// of their children, and the same as a check of one object.
func (c *bucketLabelCache) labelSelector(expr string) (string, func(runtime.Object) bool, error) {
	held, err := BucketsOfShardSelector(expr, c.buckets)
	if err != nil {
		return "", nil, fmt.Errorf("controller: bucket label cache: %w", err)
	}
	sel := BucketLabelSelector(c.label, held)
	if expr == "" {
		sel = ""
	}
	ls, err := labels.Parse(sel)
	if err != nil {
		return "", nil, fmt.Errorf("controller: bucket label cache: %w", err)
	}
	return sel, matchesLabels(ls), nil
}

// matchesLabels is the check of one object against a label selector.
func matchesLabels(ls labels.Selector) func(runtime.Object) bool {
	return func(obj runtime.Object) bool {
		m, err := meta.Accessor(obj)
		return err == nil && ls.Matches(labels.Set(m.GetLabels()))
	}
}

// Caches returns one [Cache] that drives several: a member's
// Options.Cache is one cache, and a sharded controller has one per
// informer it shards (the owners' [InformerCache], the children's
// [InformerBucketLabelCache]). SetShardSelector tells every cache the
// selector at once, each on its own goroutine, and returns when all have
// returned: nil when every cache holds its share, otherwise the errors,
// joined. A member retries the whole call, which is harmless: a cache told
// the selector it already has only checks its share again. The result is a
// [WarmCache]: its ConfirmShare asks every cache the same way, and fails
// if one of them is not a WarmCache.
func Caches(caches ...Cache) WarmCache {
	return cacheSet(caches)
}

// cacheSet is the Cache that Caches returns.
type cacheSet []Cache

func (cs cacheSet) SetShardSelector(ctx context.Context, expr string) error {
	return cs.each(func(c Cache) error { return c.SetShardSelector(ctx, expr) })
}

func (cs cacheSet) ConfirmShare(ctx context.Context, expr string) error {
	return cs.each(func(c Cache) error {
		wc, ok := c.(WarmCache)
		if !ok {
			return fmt.Errorf("controller: caches: %T cannot confirm part of its share (it is not a WarmCache)", c)
		}
		return wc.ConfirmShare(ctx, expr)
	})
}

// each calls f for every cache at once and joins the errors.
func (cs cacheSet) each(f func(Cache) error) error {
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() { errs[i] = f(c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
