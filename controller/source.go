package controller

import (
	"context"

	"github.com/informerlab/informerlab/workqueue"
)

// Source is where a controller's events come from. Start connects the source
// to the controller's queue: from then on it turns whatever it watches into
// events, runs its predicates, and lets its [EventHandler] enqueue Requests.
// Start must not block; the source stops when ctx is done.
//
// [Kind] watches an informer (the cluster); [Channel] reads events from
// outside the cluster.
//
// client-go: controller-runtime pkg/source.Source.
type Source interface {
	Start(ctx context.Context, queue workqueue.RateLimitingInterface[Request]) error
}

// SyncingSource is a Source with an initial state to deliver: WaitForSync
// returns nil once every object of that initial state has been handed to
// the handler (and so is on the queue), or an error if ctx ends first.
// A [Controller] waits for every SyncingSource before its first Reconcile.
//
// client-go: controller-runtime pkg/source.SyncingSource.
type SyncingSource interface {
	Source
	WaitForSync(ctx context.Context) error
}
