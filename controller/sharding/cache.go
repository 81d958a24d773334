package sharding

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/internal/shardselector"
	"github.com/informerlab/informerlab/reflector"
)

// shardCatchUpWindow is how long InformerCache waits for the cache to
// reach one reference list before it takes a fresh one.
const shardCatchUpWindow = 2 * time.Second

// informerShardCache is the Cache of one sharded informer.
type informerShardCache struct {
	inf  informer.SharedIndexInformer
	lw   reflector.ListerWatcher
	wake chan struct{}

	mu      sync.Mutex
	deleted map[string]bool // keys the informer deleted since the last reference list
	held    *string         // the selector the cache last reached, nil before the first
}

// InformerCache returns the [Cache] of a sharded informer: a
// change of selector goes to [informer.SharedIndexInformer.SetShardSelector]
// (the watch ends; the Reflector lists only the gained buckets when the
// share only grows, and otherwise relists, DeltaFIFO.Replace turning lost
// objects into deletes and gained ones into adds), and SetShardSelector
// returns once the informer's cache holds the new share.
//
// The informer does not say when the list it started has reached its
// cache, so this checks against a reference: it lists what the cache must
// newly hold (the gained buckets, or the whole share after any other
// change) through lw (the informer's resource, with the selector,
// re-checked on the client in case the server ignores it) and waits until
// the cache holds every listed object at that resourceVersion or later (or
// has seen it deleted since), and, unless the share only grew, nothing
// outside the share. A reference that the cache cannot reach, an object
// deleted before the informer's own list, is replaced by a fresh one after
// a short window. The price is one extra list of what changed per change
// of ownership.
//
// It registers an event handler on inf, to see deletions and to wake up.
// The informer must be running (or about to run) when SetShardSelector is
// called: until it is, the call waits, until its context ends.
func InformerCache(inf informer.SharedIndexInformer, lw reflector.ListerWatcher) (Cache, error) {
	if inf == nil || lw == nil {
		return nil, fmt.Errorf("controller: shard cache: informer and ListerWatcher are required")
	}
	c := &informerShardCache{inf: inf, lw: lw, wake: make(chan struct{}, 1), deleted: map[string]bool{}}
	_, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(obj any) {
			if key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				c.mu.Lock()
				c.deleted[key] = true
				c.mu.Unlock()
			}
			c.poke()
		},
	})
	if err != nil {
		return nil, fmt.Errorf("controller: shard cache: %w", err)
	}
	return c, nil
}

func (c *informerShardCache) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *informerShardCache) SetShardSelector(ctx context.Context, expr string) error {
	in, err := shareCheck(expr)
	if err != nil {
		return err
	}
	if err := c.inf.SetShardSelector(expr); err != nil {
		return fmt.Errorf("controller: shard cache: %w", err)
	}
	// A share that only grows is reached once the cache holds what it
	// gained (all the Reflector lists too: see reflector.WidenedShard): it
	// held nothing outside the old share, and is given nothing outside the
	// new one. Anything else needs a reference of the whole share, and a
	// look at every cached object for those that left it.
	ref, refIn, outside := &metav1.ListOptions{ShardSelector: expr}, in, in
	if from := c.forgetHeld(); from != nil {
		if gained, ok := reflector.WidenedShard(*from, expr); ok {
			ref, outside = nil, nil
			if gained != "" {
				ref = &metav1.ListOptions{ShardSelector: gained}
				if refIn, err = shareCheck(gained); err != nil {
					return err
				}
			}
		}
	}
	return c.reach(ctx, expr, ref, refIn, outside)
}

// forgetHeld returns the selector the cache last reached, nil if unknown,
// and forgets it until the change under way is reached.
func (c *informerShardCache) forgetHeld() *string {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := c.held
	c.held = nil
	return from
}

// reach waits until the cache holds the share expr: every object of the
// reference list ref, which refIn re-checks (nil: the change selects the
// same objects, nothing to wait for), and, when outside is not nil, nothing
// it rejects. Then expr is the share the cache holds.
func (c *informerShardCache) reach(ctx context.Context, expr string, ref *metav1.ListOptions, refIn, outside func(runtime.Object) bool) error {
	if ref != nil {
		if err := c.waitForShare(ctx, *ref, refIn, outside); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.held = &expr
	c.mu.Unlock()
	return nil
}

// ConfirmShare returns once the cache holds every object of expr's share
// at the resourceVersion a list of it returns now, or newer (or has seen it
// deleted since): one reference list of that part of the share only. The
// informer's selector is left as it is, and must already cover expr.
func (c *informerShardCache) ConfirmShare(ctx context.Context, expr string) error {
	in, err := shareCheck(expr)
	if err != nil {
		return err
	}
	return c.waitForShare(ctx, metav1.ListOptions{ShardSelector: expr}, in, nil)
}

// shareCheck parses a shard selector into a check of one object ("" accepts
// every object).
func shareCheck(expr string) (func(runtime.Object) bool, error) {
	var sel sharding.Selector
	if expr != "" {
		var err error
		if sel, err = shardselector.Parse(expr); err != nil {
			return nil, fmt.Errorf("controller: shard cache: invalid shard selector %q: %w", expr, err)
		}
	}
	return func(obj runtime.Object) bool { return inShare(sel, obj) }, nil
}

// waitForShare waits until the cache holds, at least as new, every object
// that a list with opts returns and in accepts (in re-checks the list, in
// case the server ignored a selector), and, when outside is not nil,
// nothing outside rejects. A reference the cache cannot reach within
// shardCatchUpWindow is taken again.
func (c *informerShardCache) waitForShare(ctx context.Context, opts metav1.ListOptions, in, outside func(runtime.Object) bool) error {
	for {
		want, err := c.reference(ctx, opts, in)
		if err != nil {
			return err
		}
		if done, err := c.waitCaughtUp(ctx, outside, want); done || err != nil {
			return err
		}
	}
}

// waitCaughtUp waits, up to shardCatchUpWindow, until the cache holds the
// reference list want (and, when in is not nil, nothing in rejects); false
// without an error means the window passed.
func (c *informerShardCache) waitCaughtUp(ctx context.Context, in func(runtime.Object) bool, want map[string]string) (bool, error) {
	window := time.NewTimer(shardCatchUpWindow)
	defer window.Stop()
	for !c.caughtUp(in, want) {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-window.C:
			return false, nil
		case <-c.wake:
		case <-time.After(50 * time.Millisecond):
		}
	}
	return true, nil
}

// reference lists the share now: key → resourceVersion of every object in
// it. It forgets the deletions seen so far: only later ones excuse a listed
// key missing from the cache.
func (c *informerShardCache) reference(ctx context.Context, opts metav1.ListOptions, in func(runtime.Object) bool) (map[string]string, error) {
	c.mu.Lock()
	c.deleted = map[string]bool{}
	c.mu.Unlock()
	list, err := c.lw.List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("controller: shard cache: listing the share: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("controller: shard cache: listing the share: %w", err)
	}
	want := map[string]string{}
	for _, item := range items {
		if !in(item) {
			continue // the server ignored the selector
		}
		key, err := deltafifo.DeletionHandlingMetaNamespaceKeyFunc(item)
		if err != nil {
			continue
		}
		m, _ := meta.Accessor(item)
		want[key] = m.GetResourceVersion()
	}
	return want, nil
}

func inShare(sel sharding.Selector, obj runtime.Object) bool {
	if sel == nil {
		return true
	}
	ok, err := sel.Matches(obj)
	return err == nil && ok
}

// caughtUp reports whether the cache holds the share: nothing outside it
// (when in is not nil), and every object of the reference list at its
// version or later, unless deleted since.
func (c *informerShardCache) caughtUp(in func(runtime.Object) bool, want map[string]string) bool {
	idx := c.inf.GetIndexer()
	for _, item := range idx.List() {
		if obj, ok := item.(runtime.Object); ok && in != nil && !in(obj) {
			return false
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, rv := range want {
		item, ok, err := idx.GetByKey(key)
		if err != nil {
			return false
		}
		if !ok {
			if c.deleted[key] {
				continue
			}
			return false
		}
		m, err := meta.Accessor(item)
		if err != nil {
			return false
		}
		if cmp, err := resourceversion.CompareResourceVersion(m.GetResourceVersion(), rv); err == nil && cmp < 0 {
			return false
		}
	}
	return true
}
