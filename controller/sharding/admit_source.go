package sharding

import (
	"context"
	"errors"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/workqueue"
)

// Lister is what an [AdmitSource] reads: an informer's Indexer, or its
// Store, fits.
//
// client-go: tools/cache.Store.List.
type Lister interface {
	List() []any
}

// AdmitSource brings the keys of admitted buckets to a controller's queue:
// it is a [controller.Source] of that controller, and its Admitted method
// is the member's Options.OnAdmit. A warm member (Options.Warm) needs it:
// the objects of a bucket it gains were in its cache before, their keys
// were refused as not ours, and no relist brings them again. A cold one
// gains from it too: the widening's adds reach the queue before the bucket
// is admitted, and the guard puts them off by RetryPeriod.
//
// client-go: none.
type AdmitSource struct {
	store   Lister
	buckets int

	mu    sync.Mutex // guards queue
	queue workqueue.RateLimitingInterface[controller.Request]
}

// NewAdmitSource returns the source of the objects of store (the cache of
// the informer the member shards), in a ring of buckets buckets.
func NewAdmitSource(store Lister, buckets int) *AdmitSource {
	return &AdmitSource{store: store, buckets: buckets}
}

// String names the source in logs and errors.
func (s *AdmitSource) String() string { return "AdmitSource" }

// Start remembers the controller's queue; Admitted adds to it from then on.
func (s *AdmitSource) Start(_ context.Context, queue workqueue.RateLimitingInterface[controller.Request]) error {
	if queue == nil {
		return errors.New("controller: admit source: queue is nil")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queue != nil {
		return errors.New("controller: admit source was started twice")
	}
	s.queue = queue
	return nil
}

// Admitted adds to the queue the key of every cached object whose bucket
// is one of buckets. Before Start it does nothing: the controller's own
// sources bring every cached key when it starts.
func (s *AdmitSource) Admitted(buckets []int) {
	s.mu.Lock()
	queue := s.queue
	s.mu.Unlock()
	if queue == nil || len(buckets) == 0 {
		return
	}
	admitted := make(map[int]bool, len(buckets))
	for _, b := range buckets {
		admitted[b] = true
	}
	for _, item := range s.store.List() {
		m, err := meta.Accessor(item)
		if err != nil || m.GetUID() == "" || !admitted[BucketOf(m.GetUID(), s.buckets)] {
			continue
		}
		queue.Add(controller.Request{NamespacedName: types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}})
	}
}
