package walkthrough

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// lastApplied is the annotation kubectl apply writes: a full copy of the
// object as last applied, often the largest part of it.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// TestConfusionCacheMemoryAndTransforms caches 200 ConfigMaps that look like
// those of a real cluster — a 4 KiB last-applied-configuration annotation and
// managedFields on each — twice: once as they come, once through a
// transform (SetTransform) that strips both before anything is stored. The
// transformed cache and its handler never see the fields, and the cache's
// objects, measured as their JSON size and as the heap the informer keeps,
// shrink by far more than half. An informer caches whole objects unless told
// otherwise; the transform is where to tell it.
//
// Diagram: steps 2-5. client-go: SharedIndexInformer.SetTransform, TransformFunc.
func TestConfusionCacheMemoryAndTransforms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		big := strings.Repeat("x", 4096)
		for i := range 200 {
			cm := configMap("ns", fmt.Sprintf("cm-%03d", i), "1")
			cm.SetAnnotations(map[string]string{lastApplied: big, "team": "blue"})
			create(t, cms, cm)
		}

		plain, plainHeap := cacheAll(t, asFromARealServer(cms), nil)
		var handed *unstructured.Unstructured
		slim, slimHeap := cacheAll(t, asFromARealServer(cms), func(inf informer.SharedIndexInformer) {
			require.NoError(t, inf.SetTransform(func(obj any) (any, error) {
				u, ok := obj.(*unstructured.Unstructured)
				if !ok {
					return obj, nil
				}
				u.SetManagedFields(nil)
				annotations := u.GetAnnotations()
				delete(annotations, lastApplied)
				u.SetAnnotations(annotations)
				return u, nil
			}))
			_, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
				if u := obj.(*unstructured.Unstructured); u.GetName() == "cm-000" {
					handed = u
				}
			}})
			require.NoError(t, err)
		})

		before := mustGet(t, plain, "ns/cm-000").(*unstructured.Unstructured)
		after := mustGet(t, slim, "ns/cm-000").(*unstructured.Unstructured)
		t.Logf("cm-000 as cached without the transform: annotations %v, %d managedFields entries", annotationNames(before), len(before.GetManagedFields()))
		t.Logf("cm-000 as cached with the transform: annotations %v, %d managedFields entries", annotationNames(after), len(after.GetManagedFields()))
		assert.Contains(t, before.GetAnnotations(), lastApplied)
		assert.NotEmpty(t, before.GetManagedFields())
		assert.NotContains(t, after.GetAnnotations(), lastApplied, "stripped before it was cached")
		assert.Empty(t, after.GetManagedFields())
		assert.Equal(t, "blue", after.GetAnnotations()["team"], "what the controller reads is kept")
		require.NotNil(t, handed)
		assert.NotContains(t, handed.GetAnnotations(), lastApplied, "handlers get the transformed object too")

		plainBytes, slimBytes := jsonBytes(t, plain), jsonBytes(t, slim)
		t.Logf("cached JSON: %d KiB without the transform, %d KiB with it", plainBytes/1024, slimBytes/1024)
		t.Logf("heap kept by the informer: %d KiB without the transform, %d KiB with it", plainHeap/1024, slimHeap/1024)
		assert.Less(t, slimBytes*5, plainBytes, "the transformed cache is less than a fifth of the size")
		assert.Less(t, slimHeap*2, plainHeap, "and the informer keeps less than half the heap")
	})
}

// cacheAll builds an informer on lw, lets prepare configure it, runs it
// until synced and returns it with the heap it grew by (after a GC, the
// objects it keeps).
func cacheAll(t *testing.T, lw reflector.ListerWatcher, prepare func(informer.SharedIndexInformer)) (informer.SharedIndexInformer, uint64) {
	t.Helper()
	before := heapInUse()
	inf := informer.NewSharedIndexInformer(lw, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
	if prepare != nil {
		prepare(inf)
	}
	startInformer(t, inf)
	synctest.Wait()
	after := heapInUse()
	if after < before {
		return inf, 0
	}
	return inf, after - before
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// jsonBytes is the total JSON size of the informer's cached objects.
func jsonBytes(t *testing.T, inf informer.SharedIndexInformer) int {
	t.Helper()
	n := 0
	for _, obj := range inf.GetStore().List() {
		data, err := json.Marshal(obj)
		require.NoError(t, err)
		n += len(data)
	}
	return n
}

// asFromARealServer wraps a fakeapi client so that every object it returns
// looks as if it came from a real API server: decoded from JSON into memory
// of its own (fakeapi's in-process copies share their strings with the
// server) and carrying managedFields (fakeapi keeps no field managers).
func asFromARealServer(c *fakeapi.ResourceClient) reflector.ListerWatcher {
	return reflector.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			list, err := c.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			err = meta.EachListItem(list, func(obj kruntime.Object) error {
				fromTheWire(obj)
				return nil
			})
			return list, err
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := c.Watch(ctx, opts)
			if err != nil {
				return nil, err
			}
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				if e.Type != watch.Error && e.Type != watch.Bookmark {
					fromTheWire(e.Object)
				}
				return e, true
			}), nil
		},
	}
}

// fromTheWire gives an unstructured obj a kubectl apply field manager entry
// of about 1 KiB, the size of a small object's real managedFields, and then
// replaces its contents with a fresh decoding of its JSON.
func fromTheWire(obj kruntime.Object) {
	m, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	fields := `{"f:data":{` + strings.Repeat(`"f:key":{},`, 100) + `"f:value":{}}}`
	m.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager:    "kubectl-client-side-apply",
		Operation:  metav1.ManagedFieldsOperationUpdate,
		APIVersion: "v1",
		Time:       &metav1.Time{Time: time.Now()},
		FieldsType: "FieldsV1",
		FieldsV1:   metav1.NewFieldsV1(fields),
	}})
	data, err := json.Marshal(m.Object)
	if err != nil {
		return
	}
	var fresh map[string]any
	if json.Unmarshal(data, &fresh) == nil {
		m.Object = fresh
	}
}

// annotationNames returns the sorted names of an object's annotations.
func annotationNames(u *unstructured.Unstructured) []string {
	var names []string
	for name := range u.GetAnnotations() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
