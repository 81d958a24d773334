package controller_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/workqueue"
)

// TestFirstReconcileWaitsForHandlerToSeeInitialList: the informer syncs at
// once, but the source's handler takes a second per initial object. Start
// waits for the handler registration too, so when the first Reconcile runs,
// all three initial objects are already on the queue.
// Diagram: steps 6, 7, 8. client-go: controller-runtime Kind.WaitForSync (registration HasSynced).
func TestFirstReconcileWaitsForHandlerToSeeInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		for _, name := range []string{"a", "b", "c"} {
			ctrltest.Create(t, srv, ctrltest.NewCM("ns", name))
		}
		inf := ctrltest.RunInformer(t, srv)
		var enqueued atomic.Int32
		slow := controller.EventHandlerFuncs{CreateFunc: func(ctx context.Context, e controller.CreateEvent, q workqueue.RateLimitingInterface[controller.Request]) {
			time.Sleep(time.Second)
			controller.EnqueueRequestForObject{}.Create(ctx, e, q)
			enqueued.Add(1)
		}}
		var seenAtFirst atomic.Int32
		var once sync.Once
		r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
			once.Do(func() { seenAtFirst.Store(enqueued.Load()) })
			return controller.Result{}, nil
		})
		c, err := controller.New("test", r, controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		require.NoError(t, c.Watch(controller.Kind(inf, slow)))

		began := time.Now()
		ctrltest.Start(t, c)
		synctest.Wait()
		require.True(t, inf.HasSynced())

		assert.Zero(t, c.Counts().Success, "no Reconcile while the handler is behind")
		t.Logf("the informer has synced; the source's handler takes 1s per initial object: Reconciles so far %d", c.Counts().Success)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		assert.Equal(t, int32(3), seenAtFirst.Load(), "the first Reconcile found the whole initial list enqueued")
		t.Logf("   %v later the first Reconcile ran, with %d of 3 initial objects enqueued", time.Since(began), seenAtFirst.Load())
		assert.Equal(t, int64(3), c.Counts().Success)
		assert.Equal(t, 3*time.Second, time.Since(began))
	})
}

// TestStartFailsWhenSourceDoesNotSyncInTime: the server refuses every list,
// so the informer never syncs; Start gives up after exactly CacheSyncTimeout
// with an error naming the source, and never calls Reconcile.
// Diagram: step 1 (failing), 8. client-go: controller-runtime Controller.Start ("timed out waiting for cache to be synced").
func TestStartFailsWhenSourceDoesNotSyncInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := ctrltest.NewServer(t)
		require.NoError(t, srv.FailNext("list", 1_000_000, 500))
		inf := ctrltest.RunInformer(t, srv)
		rec := ctrltest.NewRecorder()
		c, err := controller.New("test", rec, controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		require.NoError(t, c.Watch(controller.Channel(make(chan controller.GenericEvent), controller.EnqueueRequestForObject{})))
		require.NoError(t, c.Watch(controller.Kind(inf, controller.EnqueueRequestForObject{})))

		began := time.Now()
		err = <-ctrltest.Start(t, c)

		require.Error(t, err)
		t.Logf("every list is refused: Start returned after %v: %v", time.Since(began), err)
		assert.Equal(t, controller.DefaultCacheSyncTimeout, time.Since(began))
		assert.Contains(t, err.Error(), `controller "test": waiting for source 2 (Kind) to sync`)
		assert.Contains(t, err.Error(), "informer synced: false")
		assert.Contains(t, err.Error(), "timed out after 2m0s")
		assert.Empty(t, rec.Times())
	})
}

// TestSameRequestIsNeverReconciledConcurrently: four workers, four objects,
// events arriving every millisecond while each Reconcile takes 10ms. Workers
// do run in parallel, but never two on the same Request.
// Diagram: step 8. client-go: workqueue "stingy" guarantee (queue.go processing set).
func TestSameRequestIsNeverReconciledConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		inFlight := map[controller.Request]int{}
		maxPerKey, total, maxTotal := 0, 0, 0
		r := controller.ReconcilerFunc(func(_ context.Context, rq controller.Request) (controller.Result, error) {
			mu.Lock()
			inFlight[rq]++
			total++
			maxPerKey, maxTotal = max(maxPerKey, inFlight[rq]), max(maxTotal, total)
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			inFlight[rq]--
			total--
			mu.Unlock()
			return controller.Result{}, nil
		})
		c, ch := channelController(t, r, controller.Options{MaxConcurrentReconciles: 4})

		names := []string{"a", "b", "c", "d"}
		for i := range 400 {
			ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", names[i%len(names)])}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Second)
		synctest.Wait()

		assert.Equal(t, 1, maxPerKey, "one Request was reconciled twice at once")
		t.Logf("400 events for 4 objects, 4 workers, 10ms per Reconcile: at most %d Reconciles ran at once, at most %d per Request; %d Reconciles in all", maxTotal, maxPerKey, c.Counts().Success)
		assert.Equal(t, 4, maxTotal, "the four workers ran in parallel")
		assert.Greater(t, c.Counts().Success, int64(4*30), "events during a Reconcile ran it again afterwards")
	})
}

// TestStartTwiceIsAnError: a controller runs once.
// Diagram: step 8. client-go: controller-runtime Controller.Start ("controller was started more than once").
func TestStartTwiceIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := controller.New("test", ctrltest.NewRecorder(), controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		first := ctrltest.Start(t, c)
		synctest.Wait()

		err = c.Start(t.Context())

		require.EqualError(t, err, `controller "test": started more than once`)
		assert.Empty(t, first, "the first Start is still running")
	})
}

// TestWatchAfterStartStartsSourceAtOnce: a source watched while the
// controller runs is started immediately; after the controller stops, Watch
// fails.
// Diagram: step 7. client-go: controller-runtime Controller.Watch.
func TestWatchAfterStartStartsSourceAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := ctrltest.NewRecorder()
		c, err := controller.New("test", rec, controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- c.Start(ctx) }()
		synctest.Wait()

		ch := make(chan controller.GenericEvent, 1)
		require.NoError(t, c.Watch(controller.Channel(ch, controller.EnqueueRequestForObject{})))
		ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", "late")}
		synctest.Wait()
		assert.Equal(t, []string{"ns/late"}, rec.Requests())

		cancel()
		require.NoError(t, <-done)
		err = c.Watch(controller.Channel(ch, controller.EnqueueRequestForObject{}))
		assert.ErrorContains(t, err, "after the controller stopped")
	})
}

// TestNewRejectsBadOptions: bad input is an error, not a panic.
// Diagram: none. client-go: controller-runtime controller.New validation.
func TestNewRejectsBadOptions(t *testing.T) {
	cases := []struct {
		name string
		r    controller.Reconciler
		opts controller.Options
		want string
	}{
		{"", ctrltest.NewRecorder(), controller.Options{}, "name must not be empty"},
		{"x", nil, controller.Options{}, "reconciler is nil"},
		{"x", ctrltest.NewRecorder(), controller.Options{MaxConcurrentReconciles: -1}, "MaxConcurrentReconciles is negative"},
		{"x", ctrltest.NewRecorder(), controller.Options{CacheSyncTimeout: -time.Second}, "CacheSyncTimeout is negative"},
	}
	for _, tc := range cases {
		_, err := controller.New(tc.name, tc.r, tc.opts)
		assert.ErrorContains(t, err, tc.want)
		assert.True(t, strings.HasPrefix(err.Error(), "controller"), err.Error())
	}
}

// TestStopLeavesQueuedRequestsAndWaitsForWorkers: when the context ends,
// Start lets the Reconcile in progress finish, drops what is still queued,
// and returns only after the worker has exited.
// Diagram: step 8. client-go: controller-runtime Controller.Start (shutdown).
func TestStopLeavesQueuedRequestsAndWaitsForWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var finished atomic.Int32
		r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
			time.Sleep(time.Second) // ignores ctx on purpose: Start must still wait
			finished.Add(1)
			return controller.Result{}, nil
		})
		c, err := controller.New("test", r, controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		ch := make(chan controller.GenericEvent, 3)
		require.NoError(t, c.Watch(controller.Channel(ch, controller.EnqueueRequestForObject{})))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- c.Start(ctx) }()
		for _, name := range []string{"a", "b", "c"} {
			ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", name)}
		}
		time.Sleep(500 * time.Millisecond)

		began := time.Now()
		cancel()
		require.NoError(t, <-done)

		assert.Equal(t, 500*time.Millisecond, time.Since(began), "waited for the Reconcile in progress")
		assert.Equal(t, int32(1), finished.Load(), "b and c were dropped")
	})
}

// TestQueueLenCountsRequestsWaitingForAWorker: with the one worker held in
// a Reconcile of a, QueueLen counts b and c, waiting; a added again while
// it is reconciled, and b added twice, change nothing; once the worker is
// let go the queue drains to 0.
// Diagram: steps 7, 8. client-go: controller-runtime's workqueue_depth metric.
func TestQueueLenCountsRequestsWaitingForAWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			if req.Name == "a" {
				<-release
			}
			return controller.Result{}, nil
		})
		c, err := controller.New("test", r, controller.Options{Logger: ctrltest.Quiet})
		require.NoError(t, err)
		ch := make(chan controller.GenericEvent, 8)
		require.NoError(t, c.Watch(controller.Channel(ch, controller.EnqueueRequestForObject{})))
		assert.Equal(t, 0, c.QueueLen(), "before Start")
		ctrltest.Start(t, c)

		ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", "a")}
		synctest.Wait()
		for _, name := range []string{"b", "c", "a", "b"} {
			ch <- controller.GenericEvent{Object: ctrltest.NewCM("ns", name)}
		}
		synctest.Wait()

		assert.Equal(t, 2, c.QueueLen(), "b and c wait; a is in its Reconcile, and its second add waits for it to end")
		close(release)
		synctest.Wait()
		assert.Equal(t, 0, c.QueueLen(), "drained")
		assert.Equal(t, int64(4), c.Counts().Success, "a twice, b and c once")
	})
}
