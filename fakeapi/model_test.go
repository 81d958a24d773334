package fakeapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

// state is a list result as name -> resourceVersion.
func state(t *testing.T, list any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range list.(*unstructured.UnstructuredList).Items {
		out[it.GetName()] = it.GetResourceVersion()
	}
	return out
}

// TestRandomOperationsKeepSnapshotsAndReplayConsistent runs random writes
// (create, update, patch, delete with and without finalizers, owner
// references) and checks, after every step, the server's invariants; then
// that an Exact list at every past resourceVersion still in the window
// equals what a list returned at that time, and that replaying a watch from
// the oldest of them onto that snapshot rebuilds the current state.
// Diagram: step 1. client-go: the list-then-watch contract the Reflector relies on.
func TestRandomOperationsKeepSnapshotsAndReplayConsistent(t *testing.T) {
	for seed := range uint64(5) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := newServer(t, fakeapi.Options{HistoryLimit: 60})
			cms := s.Resource(configMaps).Namespace("default")
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, 42))
			seen := map[uint64]map[string]string{}

			for step := range 300 {
				name := "o" + strconv.Itoa(rng.IntN(8))
				switch rng.IntN(6) {
				case 0, 1:
					obj := configMap("default", name, "n", strconv.Itoa(rng.IntN(3)))
					if rng.IntN(4) == 0 {
						obj.SetFinalizers([]string{"example.com/f"})
					}
					if owner, err := cms.Get(ctx, "o"+strconv.Itoa(rng.IntN(8)), metav1.GetOptions{}); err == nil && rng.IntN(3) == 0 {
						ownedBy(obj, owner.(*unstructured.Unstructured))
					}
					_, _ = cms.Create(ctx, obj, metav1.CreateOptions{})
				case 2:
					if cur, err := cms.Get(ctx, name, metav1.GetOptions{}); err == nil {
						u := cur.(*unstructured.Unstructured)
						u.Object["data"] = map[string]any{"k": strconv.Itoa(rng.IntN(3))}
						_, _ = cms.Update(ctx, u, metav1.UpdateOptions{})
					}
				case 3:
					patch := fmt.Sprintf(`{"metadata":{"labels":{"n":"%d"}}}`, rng.IntN(3))
					_, _ = cms.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
				case 4:
					_ = cms.Delete(ctx, name, metav1.DeleteOptions{})
				case 5:
					_, _ = cms.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				}
				require.NoError(t, s.CheckInvariants(), "step %d", step)
				list, err := cms.List(ctx, metav1.ListOptions{})
				require.NoError(t, err)
				rv, _ := strconv.ParseUint(listRV(t, list), 10, 64)
				seen[rv] = state(t, list)
			}

			current := s.CurrentResourceVersion()
			oldest := uint64(0)
			for rv, want := range seen {
				list, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(rv, 10), ResourceVersionMatch: metav1.ResourceVersionMatchExact})
				if err != nil {
					continue // older than the window
				}
				assert.Equal(t, want, state(t, list), "snapshot at %d", rv)
				if oldest == 0 || rv < oldest {
					oldest = rv
				}
			}
			require.NotZero(t, oldest, "some snapshot must still be in the window")
			t.Logf("seed %d: 300 random writes; every snapshot still in the history (from resourceVersion %d to %d) lists as it did then", seed, oldest, current)
			if oldest == current {
				return
			}

			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(oldest, 10)})
			require.NoError(t, err)
			defer w.Stop()
			rebuilt := map[string]string{}
			for k, v := range seen[oldest] {
				rebuilt[k] = v
			}
			for ev := range w.ResultChan() {
				u := ev.Object.(*unstructured.Unstructured)
				if ev.Type == watch.Deleted {
					delete(rebuilt, u.GetName())
				} else {
					rebuilt[u.GetName()] = u.GetResourceVersion()
				}
				if u.GetResourceVersion() == strconv.FormatUint(current, 10) {
					break
				}
			}
			t.Logf("   a watch from %d, applied to that snapshot, rebuilds the current state: %v", oldest, assert.ObjectsAreEqual(seen[current], rebuilt))
			assert.Equal(t, seen[current], rebuilt)
		})
	}
}
