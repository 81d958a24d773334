package cache

// client-go's MutationCache, mapped onto informerlab's
// (indexer.NewIntegerResourceVersionMutationCache).
//
// MutationCache is an interface here, as in client-go, and its
// implementation is named mutationCache with a field mutationCache whose
// Keys lists what the overlay remembers, oldest first: client-go's tests
// assert to *mutationCache and call mc.(*mutationCache).mutationCache.Keys(),
// which reads its private LRU. Here Keys is informerlab's public
// MutationCache.Keys. These two names are exceptions to the shim's "shim"
// prefix, like the others doc.go lists.
//
// informerlab's Mutation, OnAddOrUpdate and OnDelete return an error for an
// object without metadata or a resourceVersion that cannot be compared;
// client-go's return nothing and log it, so the error is dropped here. The
// klog logger is accepted and unused: informerlab's cache logs nothing.

import (
	"time"

	"github.com/informerlab/informerlab/indexer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
)

type MutationCache interface {
	GetByKey(key string) (interface{}, bool, error)
	ByIndex(indexName, indexKey string) ([]interface{}, error)
	Mutation(interface{})
	OnAddOrUpdate(obj runtime.Object)
	OnDelete(obj runtime.Object)
}

type MutationCacheOptions = indexer.MutationCacheOptions

func NewIntegerResourceVersionMutationCacheWithOptions(logger klog.Logger, backingCache Store, options MutationCacheOptions) MutationCache {
	lab := indexer.NewIntegerResourceVersionMutationCache(backingCache, options)
	return &mutationCache{shimLab: lab, mutationCache: shimOverlayKeys{lab}}
}

func NewIntegerResourceVersionMutationCache(logger klog.Logger, backingCache Store, indexer Indexer, ttl time.Duration, includeAdds bool) MutationCache {
	return NewIntegerResourceVersionMutationCacheWithOptions(logger, backingCache, MutationCacheOptions{
		Indexer: indexer, TTL: ttl, IncludeAdds: includeAdds, MaxCacheSize: 100,
	})
}

type mutationCache struct {
	shimLab       *indexer.MutationCache
	mutationCache shimOverlayKeys
}

func (c *mutationCache) GetByKey(key string) (interface{}, bool, error) {
	return c.shimLab.GetByKey(key)
}

func (c *mutationCache) ByIndex(indexName, indexKey string) ([]interface{}, error) {
	return c.shimLab.ByIndex(indexName, indexKey)
}

func (c *mutationCache) Mutation(obj interface{})         { _ = c.shimLab.Mutation(obj) }
func (c *mutationCache) OnAddOrUpdate(obj runtime.Object) { _ = c.shimLab.OnAddOrUpdate(obj) }
func (c *mutationCache) OnDelete(obj runtime.Object)      { _ = c.shimLab.OnDelete(obj) }

// shimOverlayKeys gives client-go's LRU's Keys, []interface{} oldest first.
type shimOverlayKeys struct{ lab *indexer.MutationCache }

func (k shimOverlayKeys) Keys() []interface{} {
	keys := k.lab.Keys()
	out := make([]interface{}, len(keys))
	for i, key := range keys {
		out[i] = key
	}
	return out
}
