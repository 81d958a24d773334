package reflector_test

import (
	"fmt"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// FuzzWatchEventSequence feeds arbitrary sequences of watch events — good
// ones, bookmarks, unknown types, nil and wrong-typed objects — to a
// Reflector and checks it against a model: exactly the good events reach the
// Store, in order; LastSyncResourceVersion is the last good event's; the
// Reflector never panics, never relists, and keeps its invariants.
// Diagram: step 2. client-go: handleAnyWatch
func FuzzWatchEventSequence(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{3, 3, 3, 0, 0})
	f.Add([]byte{6, 5, 4, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > int(watch.DefaultChanSize) {
			data = data[:watch.DefaultChanSize]
		}
		synctest.Test(t, func(t *testing.T) {
			h := start(t, reflector.Options{IdleTimeout: -1})
			w := h.sync(t, "10")
			h.store.take()

			var want []string
			wantRV := "10"
			for i, b := range data {
				rv := strconv.Itoa(11 + i)
				name := fmt.Sprintf("p%d", b%4)
				var ev watch.Event
				switch b % 7 {
				case 0:
					ev = watch.Event{Type: watch.Added, Object: pod(name, rv)}
					want, wantRV = append(want, "add ns/"+name+"@"+rv), rv
				case 1:
					ev = watch.Event{Type: watch.Modified, Object: pod(name, rv)}
					want, wantRV = append(want, "update ns/"+name+"@"+rv), rv
				case 2:
					ev = watch.Event{Type: watch.Deleted, Object: pod(name, rv)}
					want, wantRV = append(want, "delete ns/"+name+"@"+rv), rv
				case 3:
					ev = watch.Event{Type: watch.Bookmark, Object: bookmark(rv)}
					wantRV = rv
				case 4:
					ev = watch.Event{Type: watch.EventType("X" + rv), Object: pod(name, rv)}
				case 5:
					ev = watch.Event{Type: watch.Added, Object: (*metav1.PartialObjectMetadata)(nil)}
				case 6:
					var wrong runtime.Object = &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
					ev = watch.Event{Type: watch.Modified, Object: wrong}
				}
				w.Action(ev.Type, ev.Object)
			}
			h.settle(t)

			require.Equal(t, want, h.store.take())
			assert.Equal(t, wantRV, h.r.LastSyncResourceVersion())
			assert.False(t, w.IsStopped(), "no event ended the watch")
		})
	})
}
