package walkthrough

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// TestConfusionLabelChangeOnFilteredWatchLooksLikeDelete runs an informer
// whose list and watch carry the label selector app=web, as an informer
// factory with a tweak function (or a controller-runtime cache with a label
// selector) does. Relabelling an object app=db moves it out of what the
// server shows this watch, so the watch reports DELETED and the handler gets
// OnDelete — while the object is alive and well on the server. Relabelling
// it back is an OnAdd that is not part of any initial list. A
// FilteringResourceEventHandler on an unfiltered informer reports the same
// move the same way.
//
// Diagram: steps 1, 6. client-go: ListWatch with a tweakListOptions label selector; FilteringResourceEventHandler.
func TestConfusionLabelChangeOnFilteredWatchLooksLikeDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		web := configMap("ns", "a", "1")
		web.SetLabels(map[string]string{"app": "web"})
		created := create(t, cms, web)
		selected := reflector.ListWatch{
			ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				opts.LabelSelector = "app=web"
				return cms.List(ctx, opts)
			},
			WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				opts.LabelSelector = "app=web"
				return cms.Watch(ctx, opts)
			},
		}
		filtered := informer.NewSharedIndexInformer(selected, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		everything := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		onFiltered, onFilteringHandler := &recorder{}, &recorder{}
		startInformer(t, filtered, onFiltered)
		startInformer(t, everything, informer.FilteringResourceEventHandler{
			FilterFunc: func(obj any) bool { return obj.(*unstructured.Unstructured).GetLabels()["app"] == "web" },
			Handler:    onFilteringHandler,
		})
		initial := []string{"add ns/a@" + rvOf(created) + " initial"}
		t.Log("1. An informer whose list and watch select app=web caches ns/a, labelled app=web")
		assert.Equal(t, initial, onFiltered.takeLines())
		assert.Equal(t, initial, onFilteringHandler.takeLines())

		moved := relabel(t, cms, "a", "db")
		synctest.Wait()

		gone := []string{"delete ns/a@" + rvOf(moved)}
		got := onFiltered.takeLines()
		_, exists, err := filtered.GetStore().GetByKey("ns/a")
		require.NoError(t, err)
		_, err = cms.Get(context.Background(), "a", metav1.GetOptions{})
		t.Log("2. ns/a is relabelled app=db")
		t.Logf("   the filtered informer's handler: %s; still in its cache: %v; still on the server: %v", strings.Join(got, ", "), exists, err == nil)
		assert.Equal(t, gone, got, "the filtered watch said DELETED")
		assert.False(t, exists, "and the filtered cache dropped it")
		assert.NoError(t, err, "yet the object was never deleted")
		lines, objs := onFilteringHandler.take()
		t.Logf("   a FilteringResourceEventHandler on an unfiltered informer: %s", strings.Join(lines, ", "))
		assert.Equal(t, []string{"delete ns/a@" + rvOf(created)}, lines, "the filtering handler reports the old object leaving the set")
		assert.Equal(t, "web", objs[0].(*unstructured.Unstructured).GetLabels()["app"])

		back := relabel(t, cms, "a", "web")
		synctest.Wait()

		again := []string{"add ns/a@" + rvOf(back)}
		got = onFiltered.takeLines()
		t.Logf("3. Relabelled app=web again: %s, an add that is not part of any initial list", strings.Join(got, ", "))
		assert.Equal(t, again, got, "moving back in is an add, not in any initial list")
		assert.Equal(t, again, onFilteringHandler.takeLines())
	})
}

// relabel sets the app label of a ConfigMap and returns it as stored.
func relabel(t *testing.T, c *fakeapi.ResourceClient, name, app string) *unstructured.Unstructured {
	t.Helper()
	out, err := c.Patch(context.Background(), name, types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"`+app+`"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	return out.(*unstructured.Unstructured)
}
