package samplecontroller_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	events "github.com/informerlab/informerlab/controller/recorder"
	"github.com/informerlab/informerlab/fakeapi"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestWorkersReconcileThatManyFoosAtOnce: with Options.Workers 3, three
// Foos are reconciled at once, never more, and never one Foo twice at once;
// a negative number is refused.
// Diagram: step 8 (workers). client-go: sample-controller's Run(ctx, workers).
func TestWorkersReconcileThatManyFoosAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fakeapi.New(fakeapi.Options{Scheme: sc.NewScheme()})
		defer srv.Close()
		require.NoError(t, sc.Register(srv))
		foos := srv.Resource(sc.FoosGVR).Namespace(ns)
		for i := range 6 {
			_, err := foos.Create(context.Background(), newFoo(fmt.Sprintf("foo-%d", i), fmt.Sprintf("web-%d", i), int32p(1)), metav1.CreateOptions{})
			require.NoError(t, err)
		}
		var mu sync.Mutex
		running, most := map[string]bool{}, 0
		api := func(gvr schema.GroupVersionResource, namespace string) sc.Resource {
			return srv.Resource(gvr).Namespace(namespace)
		}
		ctrl, err := sc.New(api, sc.Options{Namespace: ns, Workers: 3, Logger: quiet,
			Reconciler: func(*manager.Client, events.EventRecorder) controller.Reconciler {
				return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
					mu.Lock()
					assert.False(t, running[req.Name], "%s reconciled twice at once", req.Name)
					running[req.Name] = true
					most = max(most, len(running))
					mu.Unlock()
					time.Sleep(time.Second)
					mu.Lock()
					delete(running, req.Name)
					mu.Unlock()
					return controller.Result{}, nil
				})
			}})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ctrl.Run(ctx) }()
		start := time.Now()
		for ctrl.FooController().Counts().Success < 6 {
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("6 Foos of a second each, 3 workers: done in %v, at most %d at once", time.Since(start).Round(100*time.Millisecond), most)
		assert.Equal(t, 3, most)
		cancel()
		require.NoError(t, <-done)

		_, err = sc.New(api, sc.Options{Workers: -1})
		assert.ErrorContains(t, err, "Workers is -1")
	})
}
