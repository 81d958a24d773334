package demoengine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestEventsExpireAfterTheirTTL: the page's world deletes an Event once it
// is older than the TTL, in every namespace, and keeps the younger ones.
// Diagram: none. client-go: none (kube-apiserver's --event-ttl).
func TestEventsExpireAfterTheirTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{})
		defer srv.Close()
		events := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
			return srv.Resource(gvr).Namespace(namespace)
		}
		create := func(ns, name string) {
			ev := &unstructured.Unstructured{}
			ev.SetAPIVersion("v1")
			ev.SetKind("Event")
			ev.SetName(name)
			ev.SetNamespace(ns)
			_, err := events(eventsGVR, ns).Create(t.Context(), ev, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		names := func() []string {
			list, err := events(eventsGVR, "").List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err)
			items, _ := meta.ExtractList(list)
			var out []string
			for _, it := range items {
				acc, _ := meta.Accessor(it)
				out = append(out, acc.GetNamespace()+"/"+acc.GetName())
			}
			return out
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); expireEvents(ctx, events, time.Minute) }()

		create("default", "old")
		create("other", "old")
		time.Sleep(45 * time.Second)
		create("default", "young")
		time.Sleep(45 * time.Second) // the check at 1m30s: "old" is 90s old, "young" 45s
		synctest.Wait()

		assert.Equal(t, []string{"default/young"}, names())
		cancel()
		<-done
	})
}
