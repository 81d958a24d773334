package manager_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/manager"
)

// journal is a concurrency-safe list of lines.
type journal struct {
	mu    sync.Mutex // guards lines
	lines []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, fmt.Sprintf(format, args...))
}

func (j *journal) all() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.lines...)
}

// TestManagerStartsInOrderAndStopsInReverse: the cache has synced before
// any runnable starts; on shutdown the controller stops first, then the other runnable, and the
// cache's informer is still running for both and stopped at the end.
// Diagram: all steps (lifecycle). client-go: controller-runtime manager runnables groups, engageStopProcedure.
func TestManagerStartsInOrderAndStopsInReverse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		ctrltest.Create(t, srv, ctrltest.NewCM("ns", "a"))
		m := ctrltest.NewManager(t, srv, manager.Options{})
		inf, err := m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
		require.NoError(t, err)
		var j journal
		runnable := func(name string) manager.RunnableFunc {
			return func(ctx context.Context) error {
				j.add("start %s (cache synced: %t)", name, inf.HasSynced())
				<-ctx.Done()
				time.Sleep(time.Second) // stopping takes a while
				j.add("stop %s (cache running: %t)", name, !inf.IsStopped())
				return nil
			}
		}
		require.NoError(t, m.Add(runnable("controller")))
		require.NoError(t, m.Add(ctrltest.NoLeader{RunnableFunc: runnable("other")}))

		stop := ctrltest.RunManager(t, m)
		synctest.Wait()
		<-m.Elected()
		require.NoError(t, stop())

		lines := j.all()
		for _, line := range lines {
			t.Log(line)
		}
		require.Len(t, lines, 4)
		assert.ElementsMatch(t, []string{
			"start other (cache synced: true)",
			"start controller (cache synced: true)",
		}, lines[:2], "both start after the cache synced")
		assert.Equal(t, []string{
			"stop controller (cache running: true)",
			"stop other (cache running: true)",
		}, lines[2:], "controllers stop first, the cache last")
		assert.True(t, inf.IsStopped(), "the cache stopped last")
	})
}

// TestManagerShutdownIsBoundedByTimeout: a runnable that ignores its
// context holds shutdown up for exactly GracefulShutdownTimeout, then Start
// returns an error saying what is still running.
// Diagram: none (lifecycle). client-go: controller-runtime Options.GracefulShutdownTimeout.
func TestManagerShutdownIsBoundedByTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewManager(t, srv, manager.Options{})
		release := make(chan struct{})
		defer close(release)
		require.NoError(t, m.Add(manager.RunnableFunc(func(context.Context) error {
			<-release // ignores ctx
			return nil
		})))
		stop := ctrltest.RunManager(t, m)
		synctest.Wait()

		began := time.Now()
		err := stop()
		t.Logf("a runnable ignores its context: the manager gave up after %v: %v", time.Since(began), err)

		assert.Equal(t, manager.DefaultGracefulShutdownTimeout, time.Since(began))
		assert.ErrorContains(t, err, "graceful shutdown timed out after 30s: leader election runnables (controllers) still running")
	})
}

// TestManagerStopsWhenRunnableFails: the first runnable error stops every
// runnable and is Start's result.
// Diagram: none (lifecycle). client-go: controller-runtime manager (runnable errors end Start).
func TestManagerStopsWhenRunnableFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewManager(t, srv, manager.Options{})
		var j journal
		require.NoError(t, m.Add(ctrltest.NoLeader{RunnableFunc: func(ctx context.Context) error {
			<-ctx.Done()
			j.add("other stopped")
			return nil
		}}))
		boom := errors.New("boom")
		require.NoError(t, m.Add(manager.RunnableFunc(func(context.Context) error {
			time.Sleep(time.Minute)
			return boom
		})))

		err := m.Start(context.Background())

		assert.ErrorIs(t, err, boom)
		assert.Equal(t, []string{"other stopped"}, j.all())
	})
}

// TestManagerCacheSyncTimeoutNamesResource: a cache that cannot list ends
// Start after exactly CacheSyncTimeout, naming the resource, and no
// runnable starts.
// Diagram: step 1 (failing). client-go: controller-runtime cache WaitForCacheSync.
func TestManagerCacheSyncTimeoutNamesResource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		require.NoError(t, srv.FailNext("list", 1_000_000, 503))
		m := ctrltest.NewManager(t, srv, manager.Options{})
		_, err := m.GetInformer(ctrltest.CMGVR, ctrltest.ExampleCM())
		require.NoError(t, err)
		ran := false
		require.NoError(t, m.Add(manager.RunnableFunc(func(context.Context) error { ran = true; return nil })))

		began := time.Now()
		err = m.Start(context.Background())

		assert.Equal(t, controller.DefaultCacheSyncTimeout, time.Since(began))
		assert.EqualError(t, err, "controller: manager: timed out after 2m0s waiting for the cache to sync: [configmaps]")
		assert.False(t, ran)
	})
}

// TestManagerRejectsMisuse: a second Start, an Add after stopping, two
// controllers with one name, bad options.
// Diagram: none. client-go: controller-runtime manager ("manager already started"), controller name validation.
func TestManagerRejectsMisuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		m := ctrltest.NewManager(t, srv, manager.Options{})
		c1, err := controller.New("same", ctrltest.NewRecorder(), controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		c2, err := controller.New("same", ctrltest.NewRecorder(), controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		require.NoError(t, m.Add(c1))
		assert.ErrorContains(t, m.Add(c2), `a controller named "same" was already added`)

		stop := ctrltest.RunManager(t, m)
		synctest.Wait()
		assert.EqualError(t, m.Start(context.Background()), "controller: manager already started")
		require.NoError(t, stop())
		assert.ErrorContains(t, m.Add(manager.RunnableFunc(func(context.Context) error { return nil })), "after the manager stopped")

		_, err = manager.New(manager.Options{})
		assert.ErrorContains(t, err, "NewListerWatcher is nil")
		_, err = manager.New(manager.Options{NewListerWatcher: ctrltest.ListerWatchers(srv), HealthProbeBindAddress: "0.0.0.0:8081"})
		assert.ErrorContains(t, err, "not a loopback address")
	})
}
