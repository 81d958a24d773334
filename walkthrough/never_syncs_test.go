package walkthrough

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
	"github.com/informerlab/informerlab/reflector"
)

// TestConfusionCacheNeverSyncs gives an informer a ListerWatcher whose List
// is always refused with 403 Forbidden, as it is for a controller missing
// the RBAC rule to list its resource. Nothing crashes and nothing is
// returned: the Reflector hands each failure to the watch error handler,
// backs off and lists again, and the cache stays empty and unsynced.
// WaitForCacheSync returns false exactly when its context's 30s deadline
// passes, and a controller waiting for that informer fails its Start at its
// CacheSyncTimeout, naming the source. The only trace of the cause is in the
// error handler (by default, the log).
//
// Diagram: step 1. client-go: Reflector.ListAndWatch, WaitForCacheSync; controller-runtime CacheSyncTimeout.
func TestConfusionCacheNeverSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		create(t, cms, configMap("ns", "a", "1"))
		forbidden := reflector.ListWatch{
			ListFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return nil, apierrors.NewForbidden(cmGVR.GroupResource(), "", errors.New(`user "my-controller" cannot list resource "configmaps"`))
			},
			WatchFunc: cms.Watch,
		}
		inf := informer.NewSharedIndexInformer(forbidden, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		var mu sync.Mutex
		var failures []error
		require.NoError(t, inf.SetWatchErrorHandler(func(_ context.Context, _ *reflector.Reflector, err error) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, err)
		}))
		runInformer(t, inf)
		start := time.Now()
		t.Log("1. The informer's List is refused with 403 Forbidden (a missing RBAC rule); WaitForCacheSync waits up to 30s")

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		synced := informer.WaitForCacheSync(ctx, inf)

		assert.False(t, synced)
		assert.Equal(t, 30*time.Second, time.Since(start), "WaitForCacheSync gave up at the deadline, not before")
		assert.False(t, inf.HasSynced())
		assert.Empty(t, inf.GetStore().List())
		t.Logf("   WaitForCacheSync returned %v after %v; HasSynced=%v; cached objects: %d",
			synced, time.Since(start), inf.HasSynced(), len(inf.GetStore().List()))
		mu.Lock()
		t.Logf("   the watch error handler saw %d lists fail; the first: %v", len(failures), firstErr(failures))
		// Lists at 0s, then after jittered delays of 0.8-1.6s, 1.6-3.2s,
		// 3.2-6.4s, 6.4-12.8s and 12.8-25.6s: five or six lists fit in 30s.
		assert.GreaterOrEqual(t, len(failures), 5)
		assert.LessOrEqual(t, len(failures), 6)
		for _, err := range failures {
			assert.True(t, apierrors.IsForbidden(err), "the handler saw the cause: %v", err)
		}
		mu.Unlock()

		c, err := controller.New("configmaps", controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
			t.Error("no Reconcile may run before the cache has synced")
			return controller.Result{}, nil
		}), controller.Options{CacheSyncTimeout: time.Minute, Logger: quiet})
		require.NoError(t, err)
		require.NoError(t, c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{})))
		start = time.Now()
		t.Log("2. A controller with a one-minute CacheSyncTimeout starts on the same informer")
		err = c.Start(context.Background())
		require.Error(t, err)
		t.Logf("   Start failed after %v, having reconciled nothing: %v", time.Since(start), err)
		assert.Equal(t, time.Minute, time.Since(start), "the controller waited its CacheSyncTimeout")
		assert.Contains(t, err.Error(), "source 1 (Kind) to sync", "the error names the source")
	})
}

// firstErr returns the first of errs, or nil.
func firstErr(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}
