package demoengine

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventTTL is how long the page's embedded world keeps the controller's
// Events. kube-apiserver deletes Events after --event-ttl (one hour by
// default); the page may run for hours in a tab, creating a Foo a second,
// so it keeps them for minutes: the page does not show them.
const eventTTL = 2 * time.Minute

// expireEvents deletes, every ttl/2 until ctx ends, the Events (in every
// namespace) of the server events reaches that were created more than ttl
// ago, as kube-apiserver's event TTL does: without it they would pile up
// for as long as the page runs.
func expireEvents(ctx context.Context, events base, ttl time.Duration) {
	tick := time.NewTicker(ttl / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		list, err := events(eventsGVR, "").List(ctx, metav1.ListOptions{})
		if err != nil {
			continue // the server is closing, or a fault: try again later
		}
		items, _ := meta.ExtractList(list)
		for _, item := range items {
			acc, err := meta.Accessor(item)
			if err != nil || time.Since(acc.GetCreationTimestamp().Time) < ttl {
				continue
			}
			_ = events(eventsGVR, acc.GetNamespace()).Delete(ctx, acc.GetName(), metav1.DeleteOptions{})
		}
	}
}
